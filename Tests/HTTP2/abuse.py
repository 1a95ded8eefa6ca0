#!/usr/bin/env python3
"""HTTP/2's known attacks, each against a running server over cleartext HTTP/2 (prior knowledge), with the python-h2
library as the client: after each the attacker's connection must be closed (or its stream reset) and a well-behaved
client still served at once.

Usage: abuse.py PORT TILE_PATH SEND_TIMEOUT_SECONDS
Prints `ok NAME (detail)` or `FAIL NAME: why` per attack; exits 1 if any failed. Standard Debian python3-h2 only.
"""
import socket
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import hyperframe.frame as frames

PORT = int(sys.argv[1])
TILE = sys.argv[2]
SEND_TIMEOUT = float(sys.argv[3])
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f" ({detail})" if ok and detail else f": {detail}" if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def connect(window=None):
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    if window is not None:
        conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    sock.sendall(conn.data_to_send())
    return sock, conn


def headers(path, method="GET"):
    return [(":method", method), (":path", path), (":scheme", "http"), (":authority", f"127.0.0.1:{PORT}")]


def served_quickly():
    """A well-behaved client's tile: (status, seconds)."""
    started = time.monotonic()
    sock, conn = connect()
    conn.send_headers(1, headers(TILE), end_stream=True)
    sock.sendall(conn.data_to_send())
    status, done = None, False
    while not done:
        data = sock.recv(65536)
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(":status")
            if isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                done = True
        sock.sendall(conn.data_to_send())
    sock.close()
    return status, time.monotonic() - started


def closed_by_server(sock, within):
    """Reads until the server closes or `within` seconds pass; whether it closed (a GOAWAY, then EOF or a reset)."""
    sock.settimeout(within)
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def after(name):
    status, seconds = served_quickly()
    check(name + ": a well-behaved client is still served", status == "200" and seconds < 1.0, f"{status} in {seconds * 1000:.0f} ms")


# Rapid Reset (CVE-2023-44487): streams opened and cancelled at once, without limit.
sock, conn = connect()
for stream in range(1, 20001, 2):
    conn.send_headers(stream, headers(TILE))
    conn.reset_stream(stream)
try:
    sock.sendall(conn.data_to_send())
except (ConnectionResetError, BrokenPipeError):
    pass
check("rapid reset: the connection is closed", closed_by_server(sock, 10))
sock.close()
after("rapid reset")

# CONTINUATION flood (CVE-2024-27316 and kin): a header block that never ends.
sock, conn = connect()
flood = frames.HeadersFrame(1)
flood.data = b""
raw = flood.serialize()
for _ in range(20000):
    continuation = frames.ContinuationFrame(1)
    continuation.data = b"\x00" * 16
    raw += continuation.serialize()
try:
    sock.sendall(raw)
except (ConnectionResetError, BrokenPipeError):
    pass
check("CONTINUATION flood: the connection is closed", closed_by_server(sock, 10))
sock.close()
after("CONTINUATION flood")

# PING and SETTINGS floods: control frames whose answers the client never reads.
for name, frame in [("PING flood", lambda: frames.PingFrame(0, opaque_data=b"12345678")), ("SETTINGS flood", lambda: frames.SettingsFrame(0))]:
    sock, conn = connect()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    payload = b"".join(frame().serialize() for _ in range(2000))
    closed = False
    try:
        for _ in range(100):
            sock.sendall(payload)
    except (ConnectionResetError, BrokenPipeError, socket.timeout):
        closed = True
    check(name + ": the connection is closed", closed or closed_by_server(sock, 10))
    sock.close()
    after(name)

# HPACK bomb: a header block that decompresses to far more than the limit (one large header, then references to it).
sock, conn = connect()
big = "x" * 4000
conn.send_headers(1, headers(TILE) + [("bomb", big)], end_stream=True)
for stream in range(3, 201, 2):
    conn.send_headers(stream, headers(TILE) + [("bomb", big)] * 20, end_stream=True)
try:
    sock.sendall(conn.data_to_send())
except (ConnectionResetError, BrokenPipeError):
    pass
refused = closed_by_server(sock, 10)
check("HPACK bomb: refused (the connection closed)", refused)
sock.close()
after("HPACK bomb")

# A stream window held at zero: the client asks for a tile and never lets the server send it; the stream is reset
# after the send timeout, and the connection's other streams are served meanwhile.
sock, conn = connect(window=0)
conn.send_headers(1, headers(TILE), end_stream=True)
sock.sendall(conn.data_to_send())
sock.settimeout(SEND_TIMEOUT + 10)
started = time.monotonic()
reset, heads = None, 0
try:
    while reset is None and time.monotonic() - started < SEND_TIMEOUT + 10:
        data = sock.recv(65536)
        if not data:
            reset = "closed"
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                heads += 1
            if isinstance(event, h2.events.StreamReset):
                reset = "reset"
        sock.sendall(conn.data_to_send())
except socket.timeout:
    pass
elapsed = time.monotonic() - started
check("window held at zero: the stream is given up after the send timeout", reset is not None and elapsed < SEND_TIMEOUT + 5,
      f"{reset} after {elapsed:.1f} s")
sock.close()
after("window held at zero")

sys.exit(1 if failures else 0)
