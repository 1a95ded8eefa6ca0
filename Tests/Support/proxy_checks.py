"""What the proxy tests (Tests/Nginx, Tests/Varnish) share: checks that print as they go, a free port, plain and raw
HTTP requests, a `tiler serve` replica, and the cache-poisoning scenario both proxies must withstand."""
import http.client
import json
import socket
import subprocess

checks = []
PUBLIC_HOST = "images.example.org"


def check(name, condition, detail=""):
    checks.append((name, bool(condition)))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)


def summary(label):
    failed = sum(1 for _, ok in checks if not ok)
    print(f"{label}: {len(checks) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_tiler(tiler, root, *options, **popen):
    """A `tiler serve ROOT OPTIONS…` with one event loop on a free port (`popen`: env=…, cwd=…); returns (process, port)."""
    server = subprocess.Popen([tiler, "serve", root, "--port", "0", "--threads", "1", *options],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **popen)
    line = server.stdout.readline()
    url = next(word for word in line.split() if word.startswith("http://"))
    return server, int(url.rstrip("/").rsplit(":", 1)[1])


def get(port, path, headers=None, method="GET"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def raw(port, request, timeout=5):
    """Sends `request` (bytes) as is and returns everything the server sends until it closes or `timeout` passes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            pass
        return data


def iiif_id(body):
    try:
        return json.loads(body).get("id")
    except ValueError:
        return None


def poisoning_checks(port, image, cache_header, expect_hit=True):
    """A client tries to plant its own host in the cached IIIF answers of `image` through the proxy on `port`; the next
    visitor must get the public host's URLs. `cache_header` is the proxy's HIT/MISS header."""
    good = f"http://{PUBLIC_HOST}/iiif/3/{image}"
    info = f"/iiif/3/{image}/info.json"
    status, _, body = get(port, info, {"Host": "evil.example"})
    check("a request naming a host the proxy does not serve is refused (421), not proxied", status == 421, (status, body[:120]))
    answer = raw(port, f"GET http://evil.example{info} HTTP/1.1\r\nHost: {PUBLIC_HOST}\r\nConnection: close\r\n\r\n".encode())
    check("an absolute URL naming another host is refused or answered without that host",
          answer.startswith(b"HTTP/1.1 4") or (b"evil.example" not in answer and answer.startswith(b"HTTP/1.1 200")), answer[:200])
    forged = {"Host": PUBLIC_HOST, "X-Forwarded-Host": "evil.example", "Forwarded": "host=evil.example;proto=https",
              "X-Forwarded-Prefix": "/evil"}
    for attempt in range(2):
        status, _, body = get(port, info, forged)
        check(f"forged forwarding headers do not reach the id (attempt {attempt + 1})", status == 200 and iiif_id(body) == good,
              (status, body[:160]))
        status, headers, _ = get(port, f"/iiif/3/{image}", forged)
        check(f"nor the base URI's redirect (attempt {attempt + 1})",
              status == 303 and headers.get("Location") == good + "/info.json", (status, headers.get("Location")))
    statuses = []
    for _ in range(3):
        status, headers, body = get(port, info, {"Host": PUBLIC_HOST})
        statuses.append(headers.get(cache_header))
        check("the next visitor gets the public host's id", status == 200 and iiif_id(body) == good, (status, body[:160]))
    if expect_hit:
        check("and it comes from the proxy's cache", "HIT" in statuses, statuses)
    status, headers, _ = get(port, f"/iiif/3/{image}", {"Host": PUBLIC_HOST})
    check("the visitor's redirect names the public host", status == 303 and headers.get("Location") == good + "/info.json",
          (status, headers.get("Location")))
