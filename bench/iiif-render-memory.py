#!/usr/bin/env python3
"""Replays the non-reading IIIF render clients of issue 17 against `tiler serve` and prints what the server held.

Usage: bench/iiif-render-memory.py TILER ROOT IMAGE [--clients 57] [--format jpg] [--hold 20] [-- SERVE-OPTIONS...]

Starts `TILER serve ROOT --port 0 SERVE-OPTIONS`, opens CLIENTS connections (each with a 4 KiB receive buffer) that
ask for /iiif/3/IMAGE/full/max/0/default.FORMAT and never read, and for HOLD seconds samples the server's resident
memory while a normal client asks for a stored tile and a small render every second. Then the attackers close and the
script reports memory and the render budget in use again. Not a test: figures depend on the machine.
"""
import argparse
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def metric(port, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    match = re.search(rf"^{name} (\d+)$", text, re.M)
    return int(match.group(1)) if match else -1


def status(port, path):
    start = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
            response.read()
            code = response.status
    except urllib.error.HTTPError as error:
        code = error.code
    except Exception:
        code = 0
    return code, (time.monotonic() - start) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tiler")
    parser.add_argument("root")
    parser.add_argument("image")
    parser.add_argument("--clients", type=int, default=57)
    parser.add_argument("--format", default="jpg")
    parser.add_argument("--hold", type=float, default=20)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    extra = argv[split + 1 :]
    server = subprocess.Popen([args.tiler, "serve", args.root, "--port", "0", *extra], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        found = re.search(r":(\d+)/", line)
        if not found:
            sys.exit(f"tiler serve did not start: {line!r}")
        port = int(found.group(1))
        idle = rss_mib(server.pid)
        target = f"/iiif/3/{args.image}/full/max/0/default.{args.format}"
        attackers = []
        for _ in range(args.clients):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            attackers.append(sock)
        peak, tiles, renders = idle, [], []
        deadline = time.monotonic() + args.hold
        while time.monotonic() < deadline:
            peak = max(peak, rss_mib(server.pid))
            tiles.append(status(port, f"/images/{args.image}_files/8/0_0.jpg"))
            renders.append(status(port, f"/iiif/3/{args.image}/full/200,/0/default.jpg"))
            time.sleep(1)
        held = metric(port, "tiler_iiif_render_bytes")
        during = rss_mib(server.pid)
        for sock in attackers:
            sock.close()
        time.sleep(3)
        after = rss_mib(server.pid)
        released = metric(port, "tiler_iiif_render_bytes")
        print(f"serve options: {' '.join(extra) or '(defaults)'}; {args.clients} clients of {target}, held {args.hold:.0f} s")
        print(f"RSS MiB: idle {idle:.0f}, peak {peak:.0f}, at the end {during:.0f}, 3 s after they closed {after:.0f}")
        print(f"render budget in use: {held / 2**20:.1f} MiB while held, {released / 2**20:.1f} MiB after")
        print(f"renders started {metric(port, 'tiler_iiif_renders_total')}, refused {metric(port, 'tiler_iiif_renders_refused_total')}")
        tile_ok = sum(1 for code, _ in tiles if code == 200)
        print(f"normal client: tiles {tile_ok}/{len(tiles)} 200 (max {max(ms for _, ms in tiles):.0f} ms), "
              f"small renders {[code for code, _ in renders]}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
