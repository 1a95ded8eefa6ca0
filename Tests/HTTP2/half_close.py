#!/usr/bin/env python3
"""A client that closes its sending side after its answer, over cleartext HTTP/2 (prior knowledge) with python-h2:
the server must close the connection soon after (GOAWAY, then the socket), not hold it to the idle timeout.

Usage: half_close.py PORT PATH LIMIT_SECONDS
Prints `ok closed after N s` or `FAIL …`; exits 1 on failure.
"""
import socket
import sys
import time

import h2.config
import h2.connection
import h2.events

PORT, PATH, LIMIT = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
sock = socket.create_connection(("127.0.0.1", PORT), timeout=LIMIT + 5)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
conn.initiate_connection()
conn.send_headers(1, [(":method", "GET"), (":path", PATH), (":scheme", "http"), (":authority", f"127.0.0.1:{PORT}")], end_stream=True)
sock.sendall(conn.data_to_send())
ended = False
while not ended:
    data = sock.recv(65536)
    if not data:
        sys.exit("FAIL: closed before the answer")
    for event in conn.receive_data(data):
        if isinstance(event, h2.events.ResponseReceived) and dict(event.headers).get(":status") != "200":
            sys.exit(f"FAIL: answered {dict(event.headers).get(':status')}")
        ended = ended or isinstance(event, h2.events.StreamEnded)
    sock.sendall(conn.data_to_send())
sock.shutdown(socket.SHUT_WR)
started = time.monotonic()
try:
    while sock.recv(65536):
        pass
except socket.timeout:
    sys.exit(f"FAIL: still open {time.monotonic() - started:.1f} s after the client closed its side")
waited = time.monotonic() - started
print(f"ok closed after {waited:.2f} s" if waited < LIMIT else f"FAIL: closed only after {waited:.1f} s")
sys.exit(0 if waited < LIMIT else 1)
