#!/usr/bin/env python3
"""nginx in front of Tiler, with the shipped configurations (deploy/nginx/tiler.conf, and tiler-tls.conf: nginx_tls.py).

Slices a small pyramid, starts `tiler serve --trust-proxy` on 127.0.0.1 and a real nginx whose http {} block includes
the shipped file with only its ports and cache folder changed (each change checked to apply exactly once). Then:
  1. the cache-poisoning scenario (Tests/Support/proxy_checks.py): other hosts refused, forged forwarding headers and
     absolute URLs ignored, the next visitor's cached info.json and redirect name the public host;
  2. a host with a port is served as the public host (nginx's $host), under the same cache entry;
  3. tiles are cached (a second request is a HIT) and byte-identical to the files;
  4. private images (the server has an access policy): a bearer's image list is Tiler's answer to it, not the
     public list nginx holds; signed tiles are never held, so never served after Tiler stops (stale past their
     signature's expiry);
  5. the TLS file, with the same pyramids (nginx_tls.py).
Prints `N passed, M failed` last; exits non-zero on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from nginx_support import REPO, Nginx, rewritten
from nginx_tls import tls_scenario
from proxy_checks import PUBLIC_HOST, check, checks, free_port, get, iiif_id, poisoning_checks, start_tiler, summary

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
CONF = os.path.join(REPO, "deploy", "nginx", "tiler.conf")


def shipped_conf(tiler_port, nginx_port, cache):
    return rewritten(CONF, [(r"server 127\.0\.0\.1:8080;", f"server 127.0.0.1:{tiler_port};"),
                            (r"listen 80 default_server;", f"listen 127.0.0.1:{nginx_port} default_server;"),
                            (r"listen 80;", f"listen 127.0.0.1:{nginx_port};"),
                            (r"/var/cache/nginx/tiler", cache)])


def main():
    folder = tempfile.mkdtemp(prefix="tiler-nginx-")
    server, nginx = None, None
    try:
        root = os.path.join(folder, "root")
        source = os.path.join(folder, "a.jpg")
        subprocess.run([TILER, "sample", source, "--size", "1200x900", "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", root, "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", os.path.join(root, "p"), "--name", "secret", "--quiet"], check=True)
        with open(os.path.join(folder, "k1.key"), "w") as f:
            f.write("nginx-test-key-" + "0123456789abcdef" * 3)
        policy = os.path.join(folder, "policy.json")
        with open(policy, "w") as f:
            json.dump({"default": "public", "images": {"p/": "private"}, "keys": [{"id": "k1", "file": "k1.key"}], "window": 60}, f)
        token = subprocess.run([TILER, "token", "--access", policy, "--images", "p/*", "--expires", "1h"], check=True,
                               capture_output=True, text=True).stdout.strip()
        server, tiler_port = start_tiler(TILER, root, "--trust-proxy", "--cache-mb", "8", "--access", policy)
        nginx_port = free_port()
        os.chmod(folder, 0o755)  # nginx's workers (`nobody`) pass through it to their cache folder
        nginx = Nginx(os.path.join(folder, "nginx"), "the shipped tiler.conf")
        nginx.start(shipped_conf(tiler_port, nginx_port, nginx.cache),
                    lambda: get(nginx_port, "/healthz", {"Host": PUBLIC_HOST})[0] == 200)

        poisoning_checks(nginx_port, "a", "X-Proxy-Cache")

        status, _, body = get(nginx_port, "/iiif/3/a/info.json", {"Host": PUBLIC_HOST + ":8443"})
        check("a Host with a port is the public host (the port is not the client's to choose)",
              status == 200 and iiif_id(body) == f"http://{PUBLIC_HOST}/iiif/3/a", (status, body[:160]))

        # The versioned URL the list hands out: immutable, so nginx keeps it (unversioned ones are revalidated).
        _, _, listing = get(nginx_port, "/api/images", {"Host": PUBLIC_HOST})
        tile = json.loads(listing)[0]["dzi"][:-len(".dzi")] + "_files/10/1_1.jpg"
        with open(os.path.join(root, "a_files", "10", "1_1.jpg"), "rb") as f:
            expected = f.read()
        answers = [get(nginx_port, tile, {"Host": PUBLIC_HOST}) for _ in range(2)]
        check("tiles pass through byte for byte", all(s == 200 and b == expected for s, _, b in answers), [s for s, _, _ in answers])
        check("a tile asked twice comes from nginx's cache", answers[1][1].get("X-Proxy-Cache") == "HIT",
              answers[1][1].get("X-Proxy-Cache"))

        # Private images. The public list, asked anonymously, is now in nginx's cache (max-age 5 s); a bearer gets its own.
        anonymous = [json.loads(get(nginx_port, "/api/images", {"Host": PUBLIC_HOST})[2]) for _ in range(2)]
        check("the anonymous list leaves the private image out", [e["name"] for e in anonymous[1]] == ["a"], anonymous[1])
        status, headers, body = get(nginx_port, "/api/images", {"Host": PUBLIC_HOST, "Authorization": f"Bearer {token}"})
        names = sorted(e["name"] for e in json.loads(body)) if status == 200 else []
        check("a bearer's list is Tiler's answer to it, not the public list nginx holds", names == ["a", "p/secret"],
              (status, headers.get("X-Proxy-Cache"), body[:200]))
        status, headers, _ = get(nginx_port, "/images/p/secret.dzi", {"Host": PUBLIC_HOST, "Authorization": f"Bearer {token}"})
        query = headers.get("Tiler-Tile-Query", "")
        check("a bearer gets the private descriptor and its signed tile query", status == 200 and "sig=" in query, (status, query))
        versioned = next(e for e in json.loads(body) if e["name"] == "p/secret")["dzi"][:-len(".dzi")]
        signed = f"{versioned}_files/10/1_1.jpg?{query}"
        with open(os.path.join(root, "p", "secret_files", "10", "1_1.jpg"), "rb") as f:
            secret_tile = f.read()
        answers = [get(nginx_port, signed, {"Host": PUBLIC_HOST}) for _ in range(2)]
        check("a signed tile passes through", all(s == 200 and b == secret_tile for s, _, b in answers), [s for s, _, _ in answers])
        check("nginx does not hold a signed tile", all(h.get("X-Proxy-Cache") != "HIT" for _, h, _ in answers),
              [h.get("X-Proxy-Cache") for _, h, _ in answers])
        status, _, _ = get(nginx_port, f"{versioned}_files/10/1_1.jpg", {"Host": PUBLIC_HOST})
        check("the tile without its signature is refused through nginx", status == 401, status)
        # With Tiler gone, nginx has nothing to serve stale: a signature that has expired meanwhile is never honoured.
        server.kill()
        server.wait()
        status, _, body = get(nginx_port, signed, {"Host": PUBLIC_HOST})
        check("with Tiler stopped, nginx serves no signed tile from its cache", status >= 500 and body != secret_tile, status)
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the scenario ran to the end", False, repr(error))
    finally:
        if nginx:
            if any(not ok for _, ok in checks):
                print("nginx's error log:\n" + nginx.error_log(), flush=True)
            nginx.stop()
        if server:
            server.kill()
            server.wait()
    # The TLS file, in front of a replica of its own over the same pyramids (the one above has been stopped).
    try:
        tls_scenario(TILER, root, os.path.join(folder, "tls"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return summary("nginx")


if __name__ == "__main__":
    sys.exit(main())
