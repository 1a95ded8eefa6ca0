#!/usr/bin/env python3
"""RFC 9218 priorities against a running server over cleartext HTTP/2 (prior knowledge), with python-h2: one
connection sends a burst of requests in one write, the later ones more urgent, and the order of the answers' HEADERS
is checked — the urgent ones must all come first.

Usage: priority.py PORT PATH_TEMPLATE COUNT MODE
PATH_TEMPLATE has `{i}` for 0..COUNT-1 (distinct cached tiles). MODE: `field` (the `priority: u=N` field: the first
two thirds u=5, the last third u=0), `weight` (RFC 7540 weights in HEADERS: 110 then 256), or `none` (no signal:
answers must come in request order). Prints the order; exits 1 if it is wrong.
"""
import socket
import sys

import h2.config
import h2.connection
import h2.events

PORT, TEMPLATE, COUNT, MODE = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]

sock = socket.create_connection(("127.0.0.1", PORT), timeout=10)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
urgent = set()
for i in range(COUNT):
    stream = 1 + 2 * i
    fields = [(":method", "GET"), (":path", TEMPLATE.format(i=i)), (":scheme", "http"), (":authority", f"127.0.0.1:{PORT}")]
    is_urgent = i >= COUNT * 2 // 3
    if is_urgent:
        urgent.add(stream)
    if MODE == "field":
        fields.append(("priority", "u=0" if is_urgent else "u=5, i"))
    if MODE == "weight":
        conn.send_headers(stream, fields, end_stream=True, priority_weight=256 if is_urgent else 110, priority_depends_on=0)
    else:
        conn.send_headers(stream, fields, end_stream=True)
# One write: the server reads the whole burst before it answers any of it.
sock.sendall(conn.data_to_send())
order, ended = [], set()
while len(ended) < COUNT:
    data = sock.recv(65536)
    if not data:
        sys.exit("FAIL: the server closed the connection")
    for event in conn.receive_data(data):
        if isinstance(event, h2.events.ResponseReceived):
            status = dict(event.headers).get(":status")
            if status != "200":
                sys.exit(f"FAIL: stream {event.stream_id} answered {status}")
            order.append(event.stream_id)
        elif isinstance(event, h2.events.DataReceived):
            conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            ended.add(event.stream_id)
    sock.sendall(conn.data_to_send())
print("order:", " ".join(map(str, order)))
if MODE == "none":
    ok = order == sorted(order)
else:
    ok = set(order[: len(urgent)]) == urgent and order[len(urgent):] == sorted(order[len(urgent):])
print("ok" if ok else "FAIL: the urgent streams " + " ".join(map(str, sorted(urgent))) + " did not come first")
sys.exit(0 if ok else 1)
