#!/usr/bin/env python3
"""The served client of bench/h2-attacks.sh, and the client pieces bench/h2-attackers.py and bench/h2-attacks.py use
too (TLS, python-h2's client side, the kernel's TCP table); /usr/bin/python3 with Debian's python3-h2.

  h2-client.py --port P --dzi FILE --cafile CERT --seconds S --out FILE.json
      warms the server (every tile it will ask for, once), prints "ready", reads a time.monotonic() instant on stdin
      (the clock is system-wide, so it starts with the attack), then asks for tiles for S seconds.

It verifies the server's certificate and speaks from 127.0.0.2 (the attacks come from 127.0.0.1): a kept-alive
connection asking 3 random tiles at once (three streams) every 10 ms, and a new connection (TCP, TLS, the HTTP/2
prefaces, one tile: all in its latency) every 100 ms; a request slower than 2 s counts as failed.
"""
import argparse
import importlib.util
import json
import os
import random
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

sys.dont_write_bytecode = True


def load(name):
    """A sibling script (its name has a hyphen, so no plain import)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hostile = load("hostile-clients")  # Pyramid, percentile, describe, the kernel's TCP table, /proc samples
now = time.monotonic
HOST = "127.0.0.1"
NORMAL_SOURCE = os.environ.get("NORMAL_SOURCE", "127.0.0.2")


def error_name(code):
    try:
        return h2.errors.ErrorCodes(code).name
    except ValueError:
        return str(code)


_contexts = {}


def tls_connect(port, source=None, rcvbuf=None, cafile=None, timeout=5.0):
    """A TLS connection that negotiated h2; cafile verifies the server (the served client does, attackers do not)."""
    if cafile not in _contexts:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if cafile:
            ctx.load_verify_locations(cafile)
        else:
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        ctx.set_alpn_protocols(["h2"])
        _contexts[cafile] = ctx
    raw = socket.socket()
    try:
        if rcvbuf:  # before connect, so the window the kernel offers stays small
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if source:
            raw.bind((source, 0))
        raw.settimeout(timeout)
        raw.connect((HOST, port))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock = _contexts[cafile].wrap_socket(raw, server_hostname=HOST)
    except BaseException:
        raw.close()
        raise
    if sock.selected_alpn_protocol() != "h2":
        sock.close()
        raise ConnectionError("no h2 in ALPN")
    return sock


def h2_client(window):
    """python-h2's client side, its preface and SETTINGS (INITIAL_WINDOW_SIZE = window) ready to send."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    return conn


def describe(e):
    if isinstance(e, TimeoutError):
        return "timeout"
    return hostile.describe(e) if getattr(e, "errno", None) else str(e) or type(e).__name__


class ServerEnds:
    """Which of the server's ends of connections are still open, from the kernel's TCP table: how a client that reads
    nothing learns that the server closed it. One thread reads the table twice a second for every such connection (it
    holds the whole run's TIME_WAITs: a read per connection cost the attacker a third of a core)."""

    def __init__(self, port):
        self.suffix, self.cond, self.open, self.taken = ":%04X" % port, threading.Condition(), set(), 0.0
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            taken, ends = now(), set()
            with open("/proc/net/tcp") as f:
                for line in f:
                    if self.suffix + " " in line:
                        parts = line.split()
                        if parts[1].endswith(self.suffix) and parts[3] in hostile.TCP_OPEN_STATES:
                            ends.add(parts[2])
            with self.cond:
                self.open, self.taken = ends, taken
                self.cond.notify_all()
            time.sleep(0.5)

    def wait_closed(self, sock, end):
        """"closed (TCP table)" once the server's end of SOCK is gone or closing, None if it is open at END."""
        key, since = hostile.tcp_table_key(sock.getsockname()), now()
        with self.cond:
            while now() < end:
                if self.taken > since and key not in self.open:
                    return "closed (TCP table)"
                self.cond.wait(max(0.0, end - now()))
        return None


class Client:
    """One HTTP/2 connection over TLS from NORMAL_SOURCE."""

    def __init__(self, port, cafile, timeout):
        self.sock = tls_connect(port, source=NORMAL_SOURCE, cafile=cafile, timeout=timeout)
        self.authority = f"127.0.0.1:{port}"
        self.conn = h2_client(1 << 20)
        self.conn.increment_flow_control_window(1 << 24)
        self.sock.sendall(self.conn.data_to_send())

    def get(self, paths, deadline):
        """Asks for PATHS at once → ([(status, ms since asked)] in order, status None when unanswered; why it
        stopped early or None)."""
        t0, order = now(), []
        for path in paths:
            sid = self.conn.get_next_available_stream_id()
            self.conn.send_headers(sid, [(":method", "GET"), (":path", path), (":scheme", "https"),
                                         (":authority", self.authority)], end_stream=True)
            order.append(sid)
        got = {sid: [None, None] for sid in order}
        left = set(order)
        try:
            self.sock.sendall(self.conn.data_to_send())
            while left:
                if deadline <= now():
                    return [got[s] if s not in left else (None, None) for s in order], "timeout"
                self.sock.settimeout(deadline - now())
                data = self.sock.recv(262144)
                if not data:
                    raise ConnectionError("closed by the server")
                for ev in self.conn.receive_data(data):
                    if isinstance(ev, h2.events.ResponseReceived):
                        got[ev.stream_id][0] = dict(ev.headers).get(":status")
                    elif isinstance(ev, h2.events.DataReceived):
                        self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)) and ev.stream_id in left:
                        if isinstance(ev, h2.events.StreamReset):
                            got[ev.stream_id][0] = "reset"
                        got[ev.stream_id][1] = (now() - t0) * 1000
                        left.discard(ev.stream_id)
                    elif isinstance(ev, h2.events.ConnectionTerminated):
                        raise ConnectionError(f"GOAWAY {error_name(ev.error_code)}")
                out = self.conn.data_to_send()
                if out:
                    self.sock.sendall(out)
        except socket.timeout:
            return [got[s] if s not in left else (None, None) for s in order], "timeout"
        except (OSError, ConnectionError, h2.exceptions.ProtocolError) as e:
            return [got[s] if s not in left else (None, None) for s in order], describe(e)
        return [got[s] for s in order], None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def tally(results, why, into, offset_ms=0.0):
    for status, ms in results:
        if status == "200":
            into["ok"].append(round(ms + offset_ms, 3))
        else:
            key = why if status is None else ("reset" if status == "reset" else f"HTTP {status}")
            into["failed"][key] = into["failed"].get(key, 0) + 1


def served_main(args):
    pyramid = hostile.Pyramid(args.dzi)
    warm = Client(args.port, args.cafile, 10)  # every tile asked once, so the run measures a warm server
    for i in range(0, len(pyramid.tiles), 50):
        _, why = warm.get(pyramid.tiles[i:i + 50], now() + 30)
        if why:
            raise SystemExit(f"warming: {why}")
    warm.close()
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    end = start + args.seconds
    keep, fresh = {"ok": [], "failed": {}}, {"ok": [], "failed": {}}

    def visitor(rng, new_each_time, every, n, into):
        """N tiles at once every EVERY s, on one kept-alive connection or each time on a new one."""
        client, next_at = None, start
        while now() < end:
            t0 = now()
            try:
                client = client or Client(args.port, args.cafile, args.timeout)
                connect_ms = (now() - t0) * 1000 if new_each_time else 0.0
                results, why = client.get([pyramid.random_tile(rng) for _ in range(n)], t0 + args.timeout)
            except (OSError, ConnectionError) as e:
                connect_ms, results, why = 0.0, [(None, None)] * n, "connect: " + describe(e)
            tally(results, why, into, connect_ms)
            if client and (why or new_each_time):
                client.close()
                client = None
            next_at += every
            if next_at < now() - every:  # late: carry on from now rather than burst to catch up
                next_at = now()
            time.sleep(max(0.0, next_at - now()))

    time.sleep(max(0.0, start - now()))
    cpu0 = os.times()
    threads = [threading.Thread(target=visitor, args=(random.Random(1), False, 0.010, 3, keep)),
               threading.Thread(target=visitor, args=(random.Random(2), True, 0.100, 1, fresh))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu1 = os.times()
    with open(args.out, "w") as f:
        json.dump({"keep": keep, "fresh": fresh, "cpu_percent": 100 * (cpu1.user + cpu1.system - cpu0.user -
                                                                      cpu0.system) / (now() - start)}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dzi", required=True)
    ap.add_argument("--cafile", required=True)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=float, default=2.0, help="a request slower than this failed")
    served_main(ap.parse_args())


if __name__ == "__main__":
    main()
