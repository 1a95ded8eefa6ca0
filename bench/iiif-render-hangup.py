#!/usr/bin/env python3
"""Replays issue 17's abandoned renders and HEAD of a render against `tiler serve`, printing what the server did.

Usage: bench/iiif-render-hangup.py TILER ROOT IMAGE jpg|png [SERVE-OPTIONS...]

Starts `TILER serve ROOT --port 0 SERVE-OPTIONS`; times a HEAD of /iiif/3/IMAGE/full/max/0/default.FORMAT and
checks that it rendered nothing; then 17 clients ask for that render and close their sockets 0.3 s later, and the
script reports how long until the render budget was free again, the renders started, cancelled and refused, and how
long a new small render then takes. Not a test: figures depend on the machine.
"""
import re, socket, subprocess, sys, time, urllib.request
tiler, root, image, fmt = sys.argv[1:5]
server = subprocess.Popen([tiler, "serve", root, "--port", "0", *sys.argv[5:]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
def metric(name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    return int(re.search(rf"^{name} (\d+)$", text, re.M).group(1))
target = f"/iiif/3/{image}/full/max/0/default.{fmt}"
t = time.monotonic()
with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{target}", method="HEAD")) as r:
    print("HEAD", target, r.status, "Content-Length", r.headers.get("Content-Length"), f"{(time.monotonic()-t)*1000:.1f} ms;", "renders", metric("tiler_iiif_renders_total"))
socks = []
for _ in range(17):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(f"GET {target} HTTP/1.1\r\nHost: b\r\n\r\n".encode()); socks.append(s)
time.sleep(0.3)
for s in socks: s.close()
t = time.monotonic()
while (metric("tiler_iiif_render_bytes") > 0) and time.monotonic() - t < 60: time.sleep(0.02)
print(f"17 clients hung up 0.3 s after asking: budget free after {(time.monotonic()-t)*1000:.0f} ms; started", metric("tiler_iiif_renders_total"), "cancelled", metric("tiler_iiif_renders_cancelled_total"), "refused", metric("tiler_iiif_renders_refused_total"))
t = time.monotonic()
with urllib.request.urlopen(f"http://127.0.0.1:{port}/iiif/3/{image}/full/300,/0/default.jpg") as r:
    r.read(); print("a new render:", r.status, f"{(time.monotonic()-t)*1000:.0f} ms")
server.terminate(); server.wait()
