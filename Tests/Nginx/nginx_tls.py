"""nginx terminating TLS in front of Tiler, with the shipped deploy/nginx/tiler-tls.conf (run by test_nginx.py).

A test certificate authority (openssl, Tests/Support/certificates.py) signs an RSA certificate for the public host;
nginx runs the shipped file with only its ports, certificate paths, cache folder and ACME webroot changed, inside an
http {} block that also has Debian's own TLS settings, in front of a real `tiler serve --trust-proxy`. The clients
are curl and openssl s_client, trusting that authority alone, and name the public host in SNI and Host while they
connect to 127.0.0.1. Checked:
  1. HTTP/2 is negotiated (ALPN); tiles pass through byte for byte and are cached; every answer has HSTS, once;
  2. IIIF ids and redirects say https://PUBLIC_HOST, whatever a client forges; an unknown name is refused, in SNI
     (no handshake) and in Host / :authority (421);
  3. the plain port sends every request to the same URL over https (308) but ACME's challenges (served from the
     webroot, the one more path rewritten), and refuses unknown hosts;
  4. TLS 1.2 and 1.3 only, ECDHE with AEAD suites only in 1.2 (what Tiler's own TLS takes), each refusal shown
     not to be the client's by a control server (openssl s_server) that the same client command does reach;
  5. TLS 1.2 sessions resume (the session cache; tickets are off).
"""
import json
import os
import re
import subprocess
import tempfile
import time

from certificates import authority, server_certificate
from nginx_support import REPO, Nginx, rewritten
from proxy_checks import PUBLIC_HOST, check, checks, free_port, iiif_id, start_tiler

CONF = os.path.join(REPO, "deploy", "nginx", "tiler-tls.conf")
PLAIN_CONF = os.path.join(REPO, "deploy", "nginx", "tiler.conf")
HSTS = "max-age=31536000"


class Client:
    """curl and openssl s_client as a browser on 127.0.0.1 would be if PUBLIC_HOST resolved there."""

    def __init__(self, ca, tls_port, plain_port):
        self.ca, self.tls_port, self.plain_port = ca, tls_port, plain_port

    def curl(self, path, headers=None, scheme="https", options=()):
        """(curl's exit code, status, HTTP version, {lower-case header name: [values]}, body) of a GET of `path`."""
        port, host = self.tls_port if scheme == "https" else self.plain_port, PUBLIC_HOST
        with tempfile.NamedTemporaryFile() as head, tempfile.NamedTemporaryFile() as body:
            command = ["curl", "-sS", "--max-time", "10", "--cacert", self.ca, "--resolve", f"{host}:{port}:127.0.0.1",
                       "-D", head.name, "-o", body.name, "-w", "%{http_code} %{http_version}", *options]
            for name, value in (headers or {}).items():
                command += ["-H", f"{name}: {value}"]
            done = subprocess.run(command + [f"{scheme}://{host}:{port}{path}"], capture_output=True, text=True, timeout=20)
            status, _, version = done.stdout.partition(" ")
            fields = {}
            for line in head.read().decode("latin-1").splitlines()[1:]:
                name, colon, value = line.partition(":")
                if colon:
                    fields.setdefault(name.strip().lower(), []).append(value.strip())
            return done.returncode, int(status or 0), version, fields, body.read()

    def handshake(self, *options, port=None, server_name=PUBLIC_HOST):
        """openssl s_client's output for one handshake (empty input: it closes at once), verifying with the test
        authority; `options` choose protocols, suites, sessions."""
        done = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port or self.tls_port}", "-servername",
                               server_name, "-CAfile", self.ca, "-verify_return_error", *options],
                              input="", capture_output=True, text=True, timeout=20)
        return done.returncode, done.stdout + done.stderr


def negotiated(output):
    """The (protocol, suite) a handshake ended with, or None. s_client says `New, VERSION, Cipher is SUITE` (or Reused),
    where VERSION is the suite's first protocol; the protocol in use is in its SSL-Session block, which it prints
    for TLS 1.3 only once the server sends a ticket (TLS 1.3's suites are TLS 1.3's alone)."""
    line = re.search(r"^(?:New|Reused), (\S+), Cipher is (\S+)$", output, re.M)
    if not line or line.group(2) == "(NONE)":
        return None
    session = re.search(r"^\s+Protocol\s+: (\S+)$", output, re.M)
    return (session.group(1) if session else line.group(1)), line.group(2)


def tls_scenario(tiler, root, folder):
    os.makedirs(folder)
    server, nginx = None, None
    try:
        ca = authority(folder, "ca")
        cert, key = server_certificate(folder, "images", ca, [PUBLIC_HOST], kind="rsa")
        server, tiler_port = start_tiler(tiler, root, "--trust-proxy", "--cache-mb", "8")
        tls_port, plain_port = free_port(), free_port()
        client = Client(ca, tls_port, plain_port)
        nginx = Nginx(os.path.join(folder, "nginx"), "the shipped tiler-tls.conf")
        acme = os.path.join(nginx.folder, "acme")  # what certbot --webroot writes, readable by nginx's workers
        os.makedirs(os.path.join(acme, ".well-known", "acme-challenge"))
        token = "tiler-test-token-" + os.urandom(8).hex()
        with open(os.path.join(acme, ".well-known", "acme-challenge", token), "w") as f:
            f.write(token + ".thumbprint")
        for path in (acme, os.path.join(acme, ".well-known"), os.path.join(acme, ".well-known", "acme-challenge")):
            os.chmod(path, 0o755)
        conf = rewritten(CONF, [(r"server 127\.0\.0\.1:8080;", f"server 127.0.0.1:{tiler_port};"),
                                (r"listen 80 default_server;", f"listen 127.0.0.1:{plain_port} default_server;"),
                                (r"listen 80;", f"listen 127.0.0.1:{plain_port};"),
                                (r"listen 443 ssl http2 default_server;", f"listen 127.0.0.1:{tls_port} ssl http2 default_server;"),
                                (r"listen 443 ssl http2;", f"listen 127.0.0.1:{tls_port} ssl http2;"),
                                (r"/etc/letsencrypt/live/images\.example\.org/fullchain\.pem", cert),
                                (r"/etc/letsencrypt/live/images\.example\.org/privkey\.pem", key),
                                (r"/var/cache/nginx/tiler", nginx.cache),
                                (r"root /var/www/acme;", f"root {acme};")])
        with open(CONF) as tls, open(PLAIN_CONF) as plain:
            check("tiler-tls.conf proxies as tiler.conf does (the same location blocks, but for HSTS)",
                  locations(tls.read()) == locations(plain.read()), "the files' proxying has drifted apart")
        nginx.start(conf, lambda: client.curl("/healthz")[1] == 200)

        code, status, version, fields, _ = client.curl("/healthz", options=["--http2"])
        check("HTTP/2 is negotiated over TLS with a client trusting the test authority", (code, status, version) == (0, 200, "2"),
              (code, status, version))
        check("a live answer (not from location /) has HSTS, once", fields.get("strict-transport-security") == [HSTS], fields)

        info = "/iiif/3/a/info.json"
        good = f"https://{PUBLIC_HOST}/iiif/3/a"
        refused = subprocess.run(["curl", "-sS", "-k", "--max-time", "10", "--resolve", f"evil.example:{tls_port}:127.0.0.1",
                                  f"https://evil.example:{tls_port}{info}"], capture_output=True, text=True, timeout=20)
        check("a handshake naming another host (SNI) is refused, even by a client that trusts any certificate",
              refused.returncode == 35, (refused.returncode, refused.stderr))
        status = client.curl(info, {"Host": "evil.example"})[1]
        check("the public host in SNI and another in :authority: refused (421), not proxied", status == 421, status)
        forged = {"X-Forwarded-Host": "evil.example", "Forwarded": "host=evil.example;proto=http",
                  "X-Forwarded-Proto": "http", "X-Forwarded-Prefix": "/evil"}
        for attempt in range(2):
            _, status, _, _, body = client.curl(info, forged)
            check(f"forged forwarding headers do not reach the https id (attempt {attempt + 1})",
                  status == 200 and iiif_id(body) == good, (status, body[:160]))
            _, status, _, fields, _ = client.curl("/iiif/3/a", forged)
            check(f"nor the base URI's redirect (attempt {attempt + 1})",
                  status == 303 and fields.get("location") == [good + "/info.json"], (status, fields.get("location")))
        answers = [client.curl(info) for _ in range(3)]
        check("the next visitor gets the https id", all(a[1] == 200 and iiif_id(a[4]) == good for a in answers),
              [(a[1], a[4][:100]) for a in answers])
        check("and it comes from nginx's cache", any(a[3].get("x-proxy-cache") == ["HIT"] for a in answers),
              [a[3].get("x-proxy-cache") for a in answers])

        listing = json.loads(client.curl("/api/images")[4])
        tile = next(e for e in listing if e["name"] == "a")["dzi"][:-len(".dzi")] + "_files/10/1_1.jpg"
        with open(os.path.join(root, "a_files", "10", "1_1.jpg"), "rb") as f:
            expected = f.read()
        answers = [client.curl(tile, options=["--http2"]) for _ in range(2)]
        check("a tile passes through byte for byte over HTTP/2",
              all(a[1] == 200 and a[2] == "2" and a[4] == expected for a in answers), [a[:3] for a in answers])
        check("a tile asked twice comes from nginx's cache", answers[1][3].get("x-proxy-cache") == ["HIT"], answers[1][3])
        check("a tile has HSTS, once", answers[1][3].get("strict-transport-security") == [HSTS], answers[1][3])

        _, status, _, fields, _ = client.curl(tile + "?x=1", None, "http")
        check("the plain port redirects to the same URL over https (308)",
              status == 308 and fields.get("location") == [f"https://{PUBLIC_HOST}{tile}?x=1"], (status, fields.get("location")))
        check("and says no HSTS (browsers ignore it over plain HTTP)", "strict-transport-security" not in fields, fields)
        _, status, _, _, body = client.curl(f"/.well-known/acme-challenge/{token}", None, "http")
        check("but for the ACME challenges, answered over plain HTTP from the webroot",
              status == 200 and body == (token + ".thumbprint").encode(), (status, body[:100]))
        status = client.curl(info, {"Host": "evil.example"}, "http")[1]
        check("the plain port refuses another host (421) rather than redirect to it", status == 421, status)

        protocol_checks(client, folder, cert, key)
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the TLS scenario ran to the end", False, repr(error))
    finally:
        if nginx:
            if any(not ok for _, ok in checks):
                print("nginx's (TLS) error log:\n" + nginx.error_log(), flush=True)
            nginx.stop()
        if server:
            server.kill()
            server.wait()


def protocol_checks(client, folder, cert, key):
    # The control: openssl s_server with the same certificate takes anything the client offers (security level 0:
    # OpenSSL 3 otherwise refuses TLS 1.0/1.1 on both sides by itself). A handshake nginx refuses and this server
    # accepts is refused by nginx's configuration, not by the client.
    weak = ["-cipher", "ALL:@SECLEVEL=0"]
    control_port = free_port()  # s_server stops at the end of its input: it gets a pipe, never written
    control = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{control_port}", "-cert", cert, "-key", key,
                                *weak], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while time.time() < deadline and not negotiated(client.handshake(port=control_port)[1]):
            time.sleep(0.1)
        refused = [("TLS 1.1", ["-tls1_1", *weak]),
                   ("TLS 1.2 with a plain-RSA key exchange (no forward secrecy)", ["-tls1_2", "-cipher", "AES256-GCM-SHA384"]),
                   ("TLS 1.2 with a CBC suite", ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA"])]
        for name, options in refused:
            control_took = negotiated(client.handshake(*options, port=control_port)[1])
            code, output = client.handshake(*options)
            check(f"nginx refuses {name}, which the control server takes", code != 0 and not negotiated(output) and control_took,
                  (code, negotiated(output), control_took, output[-300:]))
        accepted = [("TLS 1.3", ["-tls1_3"], "TLSv1.3"), ("TLS 1.2 with ECDHE and AES-GCM", ["-tls1_2"], "TLSv1.2"),
                    ("TLS 1.2 with ECDHE and ChaCha20", ["-tls1_2", "-cipher", "ECDHE-RSA-CHACHA20-POLY1305"], "TLSv1.2")]
        for name, options, protocol in accepted:
            code, output = client.handshake(*options)
            suite = negotiated(output)
            check(f"nginx takes {name}", code == 0 and suite and suite[0] == protocol and (protocol == "TLSv1.3" or "ECDHE" in suite[1]),
                  (code, suite, output[-300:]))
        session = os.path.join(folder, "session.pem")
        first = negotiated(client.handshake("-tls1_2", "-sess_out", session)[1])
        code, output = client.handshake("-tls1_2", "-sess_in", session)
        check("a TLS 1.2 session resumes (nginx's session cache; no ticket)",
              first and code == 0 and "\nReused, " in output and negotiated(output) == first, (first, code, output[-300:]))
    finally:
        control.kill()
        control.wait()


def locations(conf):
    """The `location` blocks of a file that proxy to Tiler, comments, blank lines and HSTS dropped."""
    blocks, block = [], None
    for line in conf.splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("location "):
            block = []
        if block is not None and line and not line.startswith("add_header Strict-Transport-Security"):
            block.append(line)
        if block is not None and line == "}":
            if any(entry.startswith("proxy_pass ") for entry in block):
                blocks.append(block)
            block = None
    return blocks
