#!/usr/bin/env python3
"""The attack side of bench/hostile-clients.sh (Python 3 standard library only; the script drives it).

  hostile-clients.py run ATTACK --port P --pid PID --dzi FILE --seconds S --out FILE.json
      replays one attack against a running `tiler serve` for S seconds while a normal client (a child process)
      requests random tiles and a monitor (another child) samples the server's descriptors, RSS and CPU.
  hostile-clients.py report --budget-mb MB FILE.json…
      prints the table (one row per attack) and the verdict against issue 17's goal.
  hostile-clients.py normal … / monitor …   the two children (internal).

Attacks: none (the normal client alone), slow-body, flood, slowloris, iiif-no-read, abandoned-renders,
pipelined-no-read, head-render. The attack loop is one epoll selector over non-blocking sockets, so thousands of
hostile connections cost the client little; the normal client runs in its own process with blocking sockets, so
its latencies are not delayed by the attack loop (they do share the machine's cores with it and with the server).
"""
import argparse
import errno
import json
import os
import random
import resource
import selectors
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

HOST = "127.0.0.1"  # the server; the attacks come from this address too
# The normal client connects from another loopback address, as a visitor other than the attacker would: a
# per-address connection cap is meant to stop the attacker, not everyone on the same machine.
NORMAL_SOURCE = os.environ.get("NORMAL_SOURCE", "127.0.0.2")
CLK_TCK = os.sysconf("SC_CLK_TCK")
ATTACKS = ["none", "slow-body", "flood", "slowloris", "iiif-no-read", "abandoned-renders", "pipelined-no-read",
           "head-render"]
TITLES = {
    "none": "none (normal client alone)",
    "slow-body": "1 slow body (300 × 1 B/3 s + 300 × no body)",
    "flood": "2 connection flood, one address",
    "slowloris": "3 header slowloris (500 × 1 line/2 s)",
    "iiif-no-read": "4 non-reading IIIF clients (full/max)",
    "abandoned-renders": "5 abandoned PNG renders (20)",
    "pipelined-no-read": "6 pipelined non-reading client",
    "head-render": "7 HEAD of a big render",
}


def now():
    return time.monotonic()


# ---------------------------------------------------------------------------------------------------------------
# The server seen through /proc

def sample(pid):
    """(descriptors, RSS MiB, utime+stime ticks) of PID, or None once it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        rss = 0.0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
                    break
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fds, rss, int(fields[11]) + int(fields[12])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


TCP_OPEN_STATES = {"01", "08"}  # ESTABLISHED, CLOSE_WAIT: the server's end is still open


def server_side_sockets(server_port):
    """{client "ADDR:PORT" as /proc/net/tcp writes it: (state, inode, unsent bytes, unread bytes)} of the server's
    ends of connections to server_port, from /proc/net/tcp{,6}. inode 0 on an ESTABLISHED end means the kernel completed it but the server has not
    accept()ed it yet."""
    ends = {}
    suffix = ":%04X" % server_port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[1].endswith(suffix) and parts[3] != "0A":
                        tx, rx = parts[4].split(":")
                        ends[parts[2]] = (parts[3], parts[9], int(tx, 16), int(rx, 16))
        except FileNotFoundError:
            pass
    return ends


def tcp_table_key(address):
    """(ip, port) → how /proc/net/tcp writes it (the IPv4 address as a host-order hex word)."""
    ip, port = address[:2]
    return "%08X:%04X" % (int.from_bytes(socket.inet_aton(ip), sys.byteorder), port)


def spread(i, per_address=100):
    """The source address of an attack's i-th connection: 100 per address from 127.0.1.1 on, so a per-address
    connection cap does not hide how the server treats each connection (the flood alone comes from one address)."""
    return f"127.0.1.{i // per_address + 1}"


def monitor_main(args):
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    first = sample(args.pid)
    t0 = now()
    peak_fds, peak_rss = (first[0], first[1]) if first else (0, 0)
    last, died, series = first, first is None, []
    while not stop.is_set():
        s = sample(args.pid)
        if s is None:
            died = True
            break
        last = s
        peak_fds, peak_rss = max(peak_fds, s[0]), max(peak_rss, s[1])
        series.append((round(now() - t0, 2), s[0], round(s[1], 1)))
        stop.wait(args.interval)
    wall = now() - t0
    cpu = 100.0 * (last[2] - first[2]) / CLK_TCK / wall if first and last and wall > 0 else None
    with open(args.out, "w") as f:
        json.dump({"peak_fds": peak_fds, "peak_rss": peak_rss, "cpu_percent": cpu, "died": died, "series": series}, f)


# ---------------------------------------------------------------------------------------------------------------
# The pyramid and the requests a viewer makes

class Pyramid:
    def __init__(self, dzi):
        root = ET.parse(dzi).getroot()
        ns = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
        size = root.find(ns + "Size")
        self.name = os.path.basename(dzi)[:-4]
        self.width, self.height = int(size.get("Width")), int(size.get("Height"))
        self.tile = int(root.get("TileSize"))
        self.format = root.get("Format")
        self.max_level = (max(self.width, self.height) - 1).bit_length()  # ⌈log2(longest side)⌉, as Deep Zoom counts
        self.tiles = []  # the three most detailed levels, as a viewer zoomed in asks for them
        for level in range(max(0, self.max_level - 2), self.max_level + 1):
            scale = 2 ** (self.max_level - level)
            w, h = -(-self.width // scale), -(-self.height // scale)
            for row in range(-(-h // self.tile)):
                for col in range(-(-w // self.tile)):
                    self.tiles.append(f"/images/{self.name}_files/{level}/{col}_{row}.{self.format}")

    def random_tile(self, rng=random):
        return rng.choice(self.tiles)

    def small_region(self, rng=random):
        """A 300×300 region off the tile grid at full resolution: rendered, never a stored tile."""
        x = rng.randrange(1, self.width - 301) | 1
        y = rng.randrange(1, self.height - 301) | 1
        return f"/iiif/3/{self.name}/{x},{y},300,300/300,/0/default.jpg"


def request(path, method="GET", extra=""):
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: hostile-clients\r\n{extra}\r\n".encode()


# ---------------------------------------------------------------------------------------------------------------
# The normal client: blocking sockets in threads, in a process of its own

class Timeout(Exception):
    pass


def read_response(sock, deadline, head_only=False):
    """→ (status, close?) after the whole response; raises Timeout or ConnectionError."""
    buf = bytearray()

    def more():
        left = deadline - now()
        if left <= 0:
            raise Timeout()
        sock.settimeout(left)
        try:
            chunk = sock.recv(262144)
        except socket.timeout:
            raise Timeout()
        if not chunk:
            raise ConnectionError("closed by the server")
        buf.extend(chunk)

    while b"\r\n\r\n" not in buf:
        more()
    end = buf.index(b"\r\n\r\n") + 4
    lines = bytes(buf[:end - 4]).split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(b":")
        headers[key.strip().lower()] = value.strip().lower()
    close = headers.get(b"connection") == b"close"
    if head_only or status in (204, 304) or 100 <= status < 200:
        return status, close
    if b"content-length" in headers:
        total = end + int(headers[b"content-length"])
        while len(buf) < total:
            more()
    elif headers.get(b"transfer-encoding") == b"chunked":
        pos = end
        while True:
            while b"\r\n" not in buf[pos:]:
                more()
            eol = buf.index(b"\r\n", pos)
            size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
            pos = eol + 2 + size + 2
            while len(buf) < pos:
                more()
            if size == 0:
                break
    else:
        try:
            while True:
                more()
        except ConnectionError:
            return status, True
    return status, close


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.ok = []
        self.failed = {}

    def success(self, ms):
        with self.lock:
            self.ok.append(ms)

    def failure(self, why):
        with self.lock:
            self.failed[why] = self.failed.get(why, 0) + 1

    def json(self):
        return {"ok": self.ok, "failed": self.failed}


def connect(port, timeout):
    sock = socket.create_connection((HOST, port), timeout=timeout, source_address=(NORMAL_SOURCE, 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def keep_alive_client(port, pyramid, per_tick, tick, timeout, end, tally, rng):
    """A viewer's persistent connection: PER_TICK tiles one after another every TICK seconds."""
    sock = None
    next_tick = now()
    while now() < end:
        for _ in range(per_tick):
            t0 = now()
            try:
                if sock is None:
                    sock = connect(port, timeout)
                sock.sendall(request(pyramid.random_tile(rng)))
                status, close = read_response(sock, t0 + timeout)
                if status == 200:
                    tally.success((now() - t0) * 1000)
                else:
                    tally.failure(f"HTTP {status}")
                if close:
                    sock.close()
                    sock = None
            except (Timeout, socket.timeout):
                tally.failure("timeout")
                sock = drop(sock)
                break
            except OSError as e:
                tally.failure(describe(e))
                sock = drop(sock)
                break
        next_tick += tick
        wait = next_tick - now()
        if wait > 0:
            time.sleep(wait)
        elif wait < -tick:  # late: carry on from now rather than burst to catch up
            next_tick = now()
    drop(sock)


def fresh_client(port, path_of, interval, timeout, end, tally, rng, log=None):
    """A new visitor every INTERVAL seconds: connect, one request, close (the connect is in the latency)."""
    t_start = now()
    next_at = now()
    while now() < end:
        t0 = now()
        sock = None
        status = None
        limit = min(timeout, end + 2.0 - t0)  # the run ends at most 2 s after its time
        try:
            sock = connect(port, limit)
            sock.sendall(request(path_of(rng)))
            status, _ = read_response(sock, t0 + limit)
            if status == 200:
                tally.success((now() - t0) * 1000)
            else:
                tally.failure(f"HTTP {status}")
        except (Timeout, socket.timeout):
            tally.failure("timeout")
        except OSError as e:
            tally.failure(describe(e))
        drop(sock)
        if log is not None:
            log.append((round(t0 - t_start, 2), status, round((now() - t0) * 1000, 1)))
        next_at += interval
        time.sleep(max(0.0, next_at - now()))


def drop(sock):
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
    return None


def describe(e):
    if isinstance(e, ConnectionError) and str(e) == "closed by the server":
        return "closed by the server"
    name = errno.errorcode.get(e.errno, "") if getattr(e, "errno", None) else ""
    return name or type(e).__name__


def normal_main(args):
    pyramid = Pyramid(args.dzi)
    # Warm the tile cache with every tile the client will ask for, so the run measures a warm server.
    sock = connect(args.port, 10)
    for path in pyramid.tiles:
        sock.sendall(request(path))
        read_response(sock, now() + 30)
    sock.close()
    print("ready", flush=True)
    sys.stdin.readline()
    cpu0, t_start = os.times(), now()
    end = now() + args.seconds
    tiles, fresh, probe, probe_log = Tally(), Tally(), Tally(), []
    threads = [
        threading.Thread(target=keep_alive_client,
                         args=(args.port, pyramid, args.per_tick, args.tick, args.timeout, end, tiles, random.Random(1))),
        threading.Thread(target=fresh_client,
                         args=(args.port, pyramid.random_tile, args.fresh_interval, args.timeout, end, fresh,
                               random.Random(2))),
        # A small IIIF region on a fresh connection every second: is rendering still available to others?
        threading.Thread(target=fresh_client,
                         args=(args.port, pyramid.small_region, 1.0, 10.0, end, probe, random.Random(3), probe_log)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu1 = os.times()
    cpu = 100 * (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / (now() - t_start)
    with open(args.out, "w") as f:
        json.dump({"cpu_percent": cpu, "tiles": tiles.json(), "fresh": fresh.json(), "probe": probe.json(), "probe_log": probe_log}, f)


# ---------------------------------------------------------------------------------------------------------------
# The attack loop: one selector, non-blocking sockets

class Conn:
    __slots__ = ("sock", "kind", "t_open", "t_connected", "t_closed", "how", "out", "reading", "key", "rx",
                 "next_at", "written", "status", "head_at", "registered")

    def __init__(self, sock, kind, reading):
        self.sock, self.kind, self.reading = sock, kind, reading
        self.t_open, self.t_connected, self.t_closed, self.how = now(), None, None, None
        self.out, self.rx, self.key, self.next_at, self.written = bytearray(), bytearray(), None, None, 0
        self.status, self.head_at, self.registered = None, None, 0


class Engine:
    """Connections opened without blocking; 'reading' is 'drain' (read and discard, notice the close), 'peek'
    (look at the status line without taking bytes off the socket, then stop reading) or 'none' (never read; a close
    is seen in the kernel's TCP table or when a send fails)."""

    def __init__(self, port, connect_timeout=3.0):
        self.port, self.connect_timeout = port, connect_timeout
        self.sel = selectors.DefaultSelector()
        self.conns = []
        self.live = set()
        self.connecting = set()
        self.open_errors = {}
        self.established = 0  # connected and not closed yet
        self.extra = {}  # figures an attack reports besides its notes
        self.on_status = None  # peek: callback(conn, status) for a non-200 answer
        self.on_head = None  # drain: callback(conn) once a response head has arrived

    # -- opening, sending, closing

    def open(self, kind, first=b"", reading="drain", rcvbuf=None, source=None):
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if source:
                sock.bind((source, 0))
        except OSError as e:
            self.open_errors[describe(e)] = self.open_errors.get(describe(e), 0) + 1
            return None
        sock.setblocking(False)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        c = Conn(sock, kind, reading)
        c.out.extend(first)
        err = sock.connect_ex((HOST, self.port))
        self.conns.append(c)
        if err not in (0, errno.EINPROGRESS):
            self._finish(c, "refused" if err == errno.ECONNREFUSED else errno.errorcode.get(err, str(err)),
                         by_server=(err == errno.ECONNREFUSED))
            return c
        self.live.add(c)
        self.connecting.add(c)
        self._interest(c, selectors.EVENT_WRITE)
        return c

    def send(self, c, data):
        if c.t_closed is None:
            c.out.extend(data)
            if c.t_connected is not None:
                self._flush(c)

    def close(self, c, how, rst=False):
        if c.t_closed is None:
            if rst:
                try:
                    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                except OSError:
                    pass
            self._finish(c, how, by_server=False)

    def _finish(self, c, how, by_server):
        c.t_closed, c.how = now(), (how if not by_server else "server: " + how)
        if c.registered:
            self.sel.unregister(c.sock)
            c.registered = 0
        if c in self.live and c.t_connected is not None:
            self.established -= 1
        self.live.discard(c)
        self.connecting.discard(c)
        try:
            c.sock.close()
        except OSError:
            pass

    def _interest(self, c, events):
        if events == c.registered:
            return
        if not events:
            self.sel.unregister(c.sock)
        elif not c.registered:
            self.sel.register(c.sock, events, c)
        else:
            self.sel.modify(c.sock, events, c)
        c.registered = events

    def _wanted(self, c):
        events = selectors.EVENT_WRITE if c.out else 0
        if c.reading == "drain" or (c.reading == "peek" and c.status is None):
            events |= selectors.EVENT_READ
        return events

    def _flush(self, c):
        while c.out:
            try:
                n = c.sock.send(c.out)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:
                self._finish(c, describe(e) + " on send", by_server=True)
                return
            c.written += n
            del c.out[:n]
        self._interest(c, self._wanted(c))

    # -- the loop

    def run(self, until, tick=None, tick_every=0.05):
        next_tick = now()
        while True:
            t = now()
            if t >= until:
                return
            events = self.sel.select(timeout=max(0.0, min(until, next_tick) - t))
            for key, mask in events:
                c = key.data
                if c.t_closed is not None:
                    continue
                if c in self.connecting:
                    self._connected(c)
                    continue
                if mask & selectors.EVENT_READ:
                    self._read(c)
                if c.t_closed is None and mask & selectors.EVENT_WRITE:
                    self._flush(c)
            t = now()
            if t >= next_tick:
                next_tick = t + tick_every
                expired = [c for c in self.connecting if t - c.t_open > self.connect_timeout]
                for c in expired:
                    self._finish(c, "connect timeout", by_server=False)
                if tick:
                    tick(t)

    def _connected(self, c):
        err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        self.connecting.discard(c)
        if err:
            self._finish(c, "refused" if err == errno.ECONNREFUSED else errno.errorcode.get(err, str(err)),
                         by_server=True)
            return
        c.t_connected = now()
        self.established += 1
        c.key = tcp_table_key(c.sock.getsockname())
        self._flush(c)

    def _read(self, c):
        try:
            if c.reading == "peek":
                data = c.sock.recv(16, socket.MSG_PEEK)
            else:
                data = c.sock.recv(262144)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self._finish(c, describe(e), by_server=True)
            return
        if not data:
            self._finish(c, "closed", by_server=True)
            return
        if c.reading == "peek":
            if len(data) < 12:
                return
            c.status = int(data[9:12]) if data.startswith(b"HTTP/") else -1
            c.head_at = now()
            self._interest(c, self._wanted(c))
            if c.status != 200 and self.on_status:
                self.on_status(c)
            return
        if c.head_at is None:
            c.rx.extend(data[:4096])
            if b"\r\n\r\n" in c.rx:
                c.head_at = now()
                c.status = int(c.rx[9:12]) if c.rx.startswith(b"HTTP/") else -1
                if self.on_head:
                    self.on_head(c)

    # -- what the kernel says about the server's ends

    def watch_server_ends(self):
        """Marks as closed by the server every live, connected connection whose server end is gone or closing."""
        ends = server_side_sockets(self.port)
        for c in list(self.live):
            if c.key is None:
                continue
            end = ends.get(c.key)
            if end is None or end[0] not in TCP_OPEN_STATES:
                self._finish(c, "closed (TCP table)", by_server=True)

    def server_ends_summary(self):
        ends = server_side_sockets(self.port)
        accepted = queued = 0
        for c in self.live:
            end = ends.get(c.key) if c.key else None
            if end and end[0] in TCP_OPEN_STATES:
                if end[1] == "0":
                    queued += 1
                else:
                    accepted += 1
        return accepted, queued


# ---------------------------------------------------------------------------------------------------------------
# The attacks: each sets its connections up, and returns (tick, notes)

def answers(eng, kinds=None):
    """The statuses of the answers the attack's connections got before they closed: "413 ×300, 408 ×150"."""
    counts = {}
    for c in eng.conns:
        if c.status and (kinds is None or c.kind in kinds):
            counts[c.status] = counts.get(c.status, 0) + 1
    return ", ".join(f"{s} ×{n}" for s, n in sorted(counts.items())) or "none"


def attack_none(eng, p, seconds, rng):
    return None, lambda: ""


def attack_slow_body(eng, p, seconds, rng):
    """300 connections send a GET head declaring a body, then one byte every 3 s (half declare 100,000 bytes, half
    1,000, under any small cap on GET bodies a server may drain); 300 declare 1,000 bytes and send none."""
    t0 = now()
    for i in range(300):
        length = 100000 if i % 2 == 0 else 1000
        c = eng.open(f"trickle-{length}", request(p.random_tile(rng), extra=f"Content-Length: {length}\r\n"),
                     source=spread(i))
        c.next_at = t0 + 3.0 * (i + 1) / 300  # one byte every 3 s each, spread over the 3 s
    for i in range(300, 600):
        eng.open("no-body", request(p.random_tile(rng), extra="Content-Length: 1000\r\n"), source=spread(i))

    def tick(t):
        for c in list(eng.live):
            if c.kind.startswith("trickle") and c.t_connected is not None and t >= c.next_at:
                eng.send(c, b"x")
                c.next_at += 3.0

    def notes():
        return ("answers before the close: " + "; ".join(
            f"{label} {answers(eng, {kind})}" for label, kind in
            (("1 B/3 s of 100,000:", "trickle-100000"), ("1 B/3 s of 1,000:", "trickle-1000"),
             ("no body of 1,000:", "no-body"))) + "; 100 connections per source address")
    return tick, notes


def attack_flood(eng, p, seconds, rng):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(20000, soft - 100)
    state = {"attempts": 0, "stopped": None, "peak_open": 0}
    eng.connect_timeout = 3.0

    def tick(t):
        while len(eng.connecting) < 256 and state["attempts"] < target and not state["stopped"]:
            state["attempts"] += 1
            c = eng.open("flood")
            if c is None:
                state["stopped"] = "the client's own socket() failed: " + ", ".join(eng.open_errors)
                break
            if c.how == "EADDRNOTAVAIL":
                state["stopped"] = "out of local ports"
                break
        state["peak_open"] = max(state["peak_open"], eng.established)

    def notes():
        established = sum(1 for c in eng.conns if c.t_connected is not None)
        refused = sum(1 for c in eng.conns if c.how == "server: refused")
        timed_out = sum(1 for c in eng.conns if c.how == "connect timeout")
        accepted, queued = eng.server_ends_summary()
        return (f"{state['attempts']} connects tried (client limit {soft} descriptors), {established} established "
                f"(at most {state['peak_open']} open at once), {refused} refused, {timed_out} timed out (3 s); at the end "
                f"the server had accepted {accepted} still-open ones and {queued} waited in its accept queue"
                + (f"; stopped: {state['stopped']}" if state["stopped"] else ""))
    return tick, notes


def attack_slowloris(eng, p, seconds, rng):
    t0 = now()
    for i in range(500):
        c = eng.open("slowloris", f"GET {p.random_tile(rng)} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode(),
                     source=spread(i))
        c.next_at = t0 + 2.0 * (i + 1) / 500
    counter = [0]

    def tick(t):
        for c in list(eng.live):
            if c.t_connected is not None and t >= c.next_at:
                counter[0] += 1
                eng.send(c, f"X-Slow-{counter[0]}: {'a' * 20}\r\n".encode())
                c.next_at += 2.0
    return tick, lambda: f"answers before the close: {answers(eng)}; 100 connections per source address"


def attack_iiif_no_read(eng, p, seconds, rng):
    """60 connections asking for the whole picture as JPEG, then (a second later, so the quick JPEG renders queue
    first) 10 as PNG, each with a tiny receive buffer, never reading the image. One whose answer is not 200 (a 503
    from a full render queue) reads nothing either, but reconnects half a second later and asks again."""
    paths = {"jpeg": f"/iiif/3/{p.name}/full/max/0/default.jpg", "png": f"/iiif/3/{p.name}/full/max/0/default.png"}
    statuses = {}
    queue = [(now() + (0 if i < 60 else 1.0), "jpeg" if i < 60 else "png") for i in range(70)]

    def on_status(c):
        statuses[c.status] = statuses.get(c.status, 0) + 1
        eng.close(c, f"client: reconnects after {c.status}", rst=True)
        queue.append((now() + 0.5, c.kind))
    eng.on_status = on_status
    last_watch = [now()]
    eng.extra["held_images_max"] = 0

    def tick(t):
        due = [q for q in queue if q[0] <= t]
        for q in due:
            queue.remove(q)
            eng.open(q[1], request(paths[q[1]]), reading="peek", rcvbuf=4096)
        if t - last_watch[0] >= 0.5:
            last_watch[0] = t
            eng.watch_server_ends()
            held = sum(1 for c in eng.live if c.status == 200)
            eng.extra["held_images_max"] = max(eng.extra["held_images_max"], held)

    def notes():
        held = {k: sum(1 for c in eng.live if c.status == 200 and c.kind == k) for k in paths}
        waiting = sum(1 for c in eng.live if c.status is None)
        answers = ", ".join(f"{n}× {s}" for s, n in sorted(statuses.items())) or "none"
        return (f"at the end {held['jpeg']} JPEG and {held['png']} PNG answers (200) sat unread, {waiting} "
                f"connections still waited for an answer; non-200 answers (each retried on a new connection): {answers}")
    return tick, notes


def attack_abandoned_renders(eng, p, seconds, rng):
    """20 PNG renders of big regions (6000×4500 at full size, each a different one), the client gone at once."""
    for i in range(20):
        x, y = rng.randrange(0, p.width - 6000), rng.randrange(0, p.height - 4500)
        eng.open("abandoned", request(f"/iiif/3/{p.name}/{x},{y},6000,4500/max/0/default.png"), reading="none")
    closed = [False]

    def tick(t):
        if not closed[0]:
            pending = [c for c in eng.live if c.t_connected is None or c.out]
            if not pending:
                for c in list(eng.live):
                    eng.close(c, "client: gone after sending")  # a plain close (FIN), as a browser tab does
                closed[0] = True
    return tick, lambda: ""


def attack_pipelined_no_read(eng, p, seconds, rng):
    n = 20000
    c = eng.open("pipelined", b"".join(request(p.random_tile(rng)) for _ in range(n)), reading="none", rcvbuf=4096)
    size = len(c.out)
    last_watch = [now()]

    def tick(t):
        if t - last_watch[0] >= 0.5:
            last_watch[0] = t
            eng.watch_server_ends()

    def notes():
        end = server_side_sockets(eng.port).get(c.key) if c.t_closed is None else None
        queues = (f"; the server's end of it had {end[3] >> 10} KiB of requests unread and {end[2] >> 10} KiB of "
                  f"responses unsent in the kernel" if end else "")
        return (f"{n} tile requests pipelined ({size >> 10} KiB): {c.written >> 10} KiB ({100 * c.written // size}%) "
                f"left the client (read by the server or waiting in the sockets' buffers)" + queues)
    return tick, notes


def attack_head_render(eng, p, seconds, rng):
    """HEAD of the whole image as JPEG, then (once answered) as PNG: how long until the headers arrive?"""
    paths = [f"/iiif/3/{p.name}/full/max/0/default.jpg", f"/iiif/3/{p.name}/full/max/0/default.png"]
    heads = []

    def start(i):
        c = eng.open("head", request(paths[i], method="HEAD"))
        heads.append((i, c))

    def on_head(c):
        i = next(i for i, h in heads if h is c)
        eng.close(c, "client: has the headers")
        if i + 1 < len(paths):
            start(i + 1)
    eng.on_head = on_head
    start(0)

    def notes():
        parts = []
        eng.extra["heads"] = [(paths[i].rsplit(".", 1)[1].upper(), c.head_at - c.t_open if c.head_at else None,
                               now() - c.t_open) for i, c in heads]
        for i, c in heads:
            fmt = paths[i].rsplit(".", 1)[1].upper()
            if c.head_at is not None:
                parts.append(f"{fmt} headers after {c.head_at - c.t_open:.2f} s (HTTP {c.status})")
            else:
                parts.append(f"{fmt}: no headers within {now() - c.t_open:.1f} s")
        return "HEAD " + "; ".join(parts)
    return tick_none, notes


def tick_none(t):
    pass


ATTACK_FUNCS = {
    "none": attack_none, "slow-body": attack_slow_body, "flood": attack_flood, "slowloris": attack_slowloris,
    "iiif-no-read": attack_iiif_no_read, "abandoned-renders": attack_abandoned_renders,
    "pipelined-no-read": attack_pipelined_no_read, "head-render": attack_head_render,
}
# Attacks whose connections the client closes itself: no "closed by the server" figure.
CLIENT_CLOSES = {"none", "abandoned-renders", "head-render"}


def percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[max(0, min(len(values) - 1, int(-(-q * len(values) // 1)) - 1))]


def health_check(port, pyramid):
    """After the attack: does the server still list the picture and answer a tile?"""
    out = []
    for path in ("/api/images", pyramid.tiles[len(pyramid.tiles) // 2]):
        try:
            sock = connect(port, 5)
            sock.sendall(request(path, extra="Connection: close\r\n"))
            sock.settimeout(5)
            data = bytearray()
            while True:
                chunk = sock.recv(262144)
                if not chunk:
                    break
                data.extend(chunk)
            sock.close()
            status = int(data[9:12])
            if path == "/api/images" and status == 200:
                listing = json.loads(bytes(data[data.index(b"\r\n\r\n") + 4:]))
                images = listing if isinstance(listing, list) else listing.get("images", [])
                out.append(f"/api/images lists {len(images)}")
            else:
                out.append(f"{'a tile' if path != '/api/images' else path}: HTTP {status}")
        except (OSError, ValueError) as e:
            out.append(f"{path}: {describe(e) if isinstance(e, OSError) else 'bad answer'}")
    return ", ".join(out)


def run_main(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass
    pyramid = Pyramid(args.dzi)
    rng = random.Random(17)
    me = os.path.abspath(__file__)
    children = []

    def stop_children(*_):
        for ch in children:
            if ch.poll() is None:
                ch.kill()
        sys.exit(1)
    signal.signal(signal.SIGTERM, stop_children)
    signal.signal(signal.SIGINT, stop_children)
    base = os.path.splitext(args.out)[0]
    try:
        normal = subprocess.Popen(
            [sys.executable, me, "normal", "--port", str(args.port), "--dzi", args.dzi, "--seconds", str(args.seconds),
             "--out", base + ".normal.json", "--per-tick", str(args.per_tick), "--tick", str(args.tick),
             "--fresh-interval", str(args.fresh_interval), "--timeout", str(args.timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        children.append(normal)
        if normal.stdout.readline().strip() != b"ready":
            raise SystemExit("the normal client could not warm the server's cache")
        before = sample(args.pid)
        monitor = subprocess.Popen([sys.executable, me, "monitor", "--pid", str(args.pid), "--interval", "0.2",
                                    "--out", base + ".monitor.json"])
        children.append(monitor)
        time.sleep(0.2)
        normal.stdin.write(b"go\n")
        normal.stdin.flush()
        t0, cpu0 = now(), os.times()
        eng = Engine(args.port)
        tick, notes = ATTACK_FUNCS[args.attack](eng, pyramid, args.seconds, rng)
        eng.run(t0 + args.seconds, tick)
        cpu1 = os.times()
        attack_cpu = max(0.0, 100 * (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / (now() - t0))
        # What the server still held when the attack stopped, then the attack's connections go (RST, no TIME_WAIT).
        if args.attack not in CLIENT_CLOSES:
            eng.watch_server_ends()
        attack_notes = notes()
        still_open = [c for c in eng.live if c.t_connected is not None]
        made = [c for c in eng.conns if c.t_connected is not None and not (c.how or "").startswith("client:")]
        by_server = [c for c in made if c.how and c.how.startswith("server:")]
        for c in list(eng.live):
            eng.close(c, "end of attack", rst=True)
        normal.wait(timeout=args.timeout + 30)
        monitor.send_signal(signal.SIGTERM)
        monitor.wait(timeout=10)
        time.sleep(args.settle)
        after = sample(args.pid)
        health = health_check(args.port, pyramid)
        with open(base + ".normal.json") as f:
            normal_result = json.load(f)
        with open(base + ".monitor.json") as f:
            monitor_result = json.load(f)
    finally:
        for ch in children:
            if ch.poll() is None:
                ch.kill()
    tiles, fresh, probe = normal_result["tiles"], normal_result["fresh"], normal_result["probe"]
    ok = tiles["ok"] + fresh["ok"]
    close_times = [c.t_closed - c.t_connected for c in by_server]
    how = {}
    for c in by_server:
        how[c.how[len("server: "):]] = how.get(c.how[len("server: "):], 0) + 1
    probe_first = next((t for t, s, _ in normal_result["probe_log"] if s == 200), None)
    result = {
        "attack": args.attack, "title": TITLES[args.attack], "seconds": args.seconds, "settle": args.settle,
        "before": before and {"fds": before[0], "rss": before[1]},
        "after": after and {"fds": after[0], "rss": after[1]},
        "peak_fds": monitor_result["peak_fds"], "peak_rss": monitor_result["peak_rss"],
        "cpu_percent": monitor_result["cpu_percent"], "server_died": monitor_result["died"] or after is None,
        "ok": len(ok), "failed": sum(tiles["failed"].values()) + sum(fresh["failed"].values()),
        "failures": {"keep-alive: " + k: v for k, v in tiles["failed"].items()} | {"fresh: " + k: v for k, v in fresh["failed"].items()},
        "keep_alive": {"ok": len(tiles["ok"]), "failed": sum(tiles["failed"].values())},
        "fresh": {"ok": len(fresh["ok"]), "failed": sum(fresh["failed"].values()),
                  "p99": percentile(fresh["ok"], 0.99)},
        "p50": percentile(ok, 0.50), "p99": percentile(ok, 0.99), "max": max(ok) if ok else None,
        "probe": {"ok": len(probe["ok"]), "failed": probe["failed"], "p50": percentile(probe["ok"], 0.5),
                  "first_ok": probe_first},
        "attack_connections": len(made), "closed_by_server": len(by_server),
        "close_median": statistics.median(close_times) if close_times else None,
        "close_times": [round(t, 3) for t in close_times],
        "close_how": how, "still_open": len(still_open),
        "client_closes": args.attack in CLIENT_CLOSES,
        "notes": attack_notes, "health": health, "extra": eng.extra,
        "client_cpu": {"attack": attack_cpu, "normal": normal_result["cpu_percent"]},
    }
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"  {args.attack}: {result['ok']} ok, {result['failed']} failed, p99 {fmt_ms(result['p99'])} ms, "
          f"peak {result['peak_fds']} fds / {result['peak_rss']:.0f} MB, "
          f"{len(by_server)}/{len(made)} attack connections closed by the server", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------------------
# The table

def fmt_ms(v):
    return "-" if v is None else (f"{v:.1f}" if v < 100 else f"{v:.0f}")


CONTAINMENT = """Contained (issue 17's Deliver items, apart from the goal; n/a for the baseline): slow body, header
slowloris, pipelined non-reading client: the server closed every attack connection within the attack's time (raise
SECONDS_PER_ATTACK when the server's deadlines are longer); flood: the server's descriptors stayed under 95% of its
limit (a per-address cap leaves it headroom); non-reading IIIF clients: RSS grew by less than the render budget;
abandoned renders: a small IIIF region was answered 200 during the attack (the abandoned ones were cancelled);
HEAD of a big render: every HEAD's headers within 2 s."""


def containment(r, nofile, render_budget):
    a = r["attack"]
    if a == "none":
        return "n/a"
    if r["server_died"]:
        return "no: the server died"
    if a in ("slow-body", "slowloris", "pipelined-no-read"):
        return "yes" if r["still_open"] == 0 else f"no: {r['still_open']} held"
    if a == "flood":
        return "yes" if r["peak_fds"] < 0.95 * nofile else f"no: {r['peak_fds']} of {nofile} descriptors"
    if a == "iiif-no-read":
        grew = r["peak_rss"] - (r["before"] or {}).get("rss", 0)
        held = r["extra"].get("held_images_max") or 0
        each = f", ≈{grew / held:.0f} MB per unread image" if held else ""
        return (f"yes: +{grew:.0f} MB" if grew < render_budget else f"no: +{grew:.0f} MB > {render_budget} MB") + each
    if a == "abandoned-renders":
        first = r["probe"]["first_ok"]
        return f"yes: after {first:.1f} s" if first is not None else "no: no small region answered"
    if a == "head-render":
        heads = r["extra"].get("heads") or []
        slow = [f"{fmt} {t:.1f} s" if t is not None else f"{fmt} no headers in {waited:.0f} s"
                for fmt, t, waited in heads if t is None or t >= 2]
        if len(heads) < 2:
            slow.append("no second HEAD sent")
        return "no: " + ", ".join(slow) if slow else f"yes: {max(t for _, t, _ in heads):.2f} s"
    return "-"


def report_main(args):
    rows = []
    for path in args.files:
        with open(path) as f:
            rows.append(json.load(f))
    budget = args.budget_mb
    print(f"| attack | descriptors before → peak → after | RSS MB before → peak → after | server CPU % "
          f"| normal client ok / failed | p50 ms | p99 ms | attack connections closed by the server (median time open) "
          f"| contained | goal |")
    print("|---|---|---|---:|---:|---:|---:|---|---|---|")
    verdicts = []
    for r in rows:
        b, a = r["before"] or {}, r["after"] or {}
        fds = f"{b.get('fds', '-')} → {r['peak_fds']} → {a.get('fds', 'gone')}"
        rss = f"{b.get('rss', 0):.0f} → {r['peak_rss']:.0f} → " + (f"{a['rss']:.0f}" if a else "gone")
        cpu = "-" if r["cpu_percent"] is None else f"{r['cpu_percent']:.0f}"
        if r["client_closes"]:
            closed = "n/a (the client closes them)"
        else:
            closed = f"{r['closed_by_server']} of {r['attack_connections']}"
            times = r.get("close_times") or []
            at_once = sum(1 for t in times if t < 0.1)
            later = [t for t in times if t >= 0.1]
            if at_once and later:
                closed += f" ({at_once} at once, the others after {statistics.median(later):.1f} s)"
            elif at_once:
                closed += " (at once)"
            elif later:
                closed += f" (after {statistics.median(later):.1f} s)"
            if r["still_open"]:
                closed += f"; {r['still_open']} still open at {r['seconds']} s"
        reasons = []
        if r["server_died"]:
            reasons.append("server died")
        if r["failed"]:
            reasons.append(f"{r['failed']} failed")
        if r["p99"] is None or r["p99"] >= 50:
            reasons.append("p99 ≥ 50 ms")
        if r["peak_rss"] >= budget:
            reasons.append(f"RSS ≥ {budget} MB")
        verdict = "PASS" if not reasons else "FAIL: " + ", ".join(reasons)
        verdicts.append(not reasons)
        print(f"| {r['title']} | {fds} | {rss} | {cpu} | {r['ok']} / {r['failed']} | {fmt_ms(r['p50'])} "
              f"| {fmt_ms(r['p99'])} | {closed} | {containment(r, args.server_nofile, args.render_budget_mb)} "
              f"| {verdict} |")
    print()
    print(f"Goal (issue 17): under each attack a normal client's tile requests keep succeeding, p99 under 50 ms, and "
          f"the server's memory stays under its configured budgets ({budget} MB here: {args.budget_note}). "
          f"{sum(verdicts)} of {len(verdicts)} rows pass.")
    print()
    print(CONTAINMENT.replace("\n", " "))
    print()
    print("Notes:")
    for r in rows:
        parts = []
        if r["failures"]:
            parts.append("normal client's failures: " + ", ".join(f"{k} ×{v}" for k, v in sorted(r["failures"].items())))
        parts.append(f"fresh connections {r['fresh']['ok']} ok / {r['fresh']['failed']} failed "
                     f"(p99 {fmt_ms(r['fresh']['p99'])} ms), max latency {fmt_ms(r['max'])} ms")
        pr = r["probe"]
        probe = f"small IIIF region (300², new connection each second): {pr['ok']} ok"
        if pr["failed"]:
            probe += " / " + ", ".join(f"{k} ×{v}" for k, v in sorted(pr["failed"].items()))
        if pr["p50"] is not None:
            probe += f", p50 {fmt_ms(pr['p50'])} ms"
        if pr["first_ok"] is None:
            probe += ", none answered"
        elif pr["first_ok"] > 1.5:
            probe += f", first answer to a request sent at {pr['first_ok']:.1f} s"
        parts.append(probe)
        if r["close_how"]:
            parts.append("closes seen: " + ", ".join(f"{k} ×{v}" for k, v in sorted(r["close_how"].items())))
        if r["notes"]:
            parts.append(r["notes"])
        if r.get("client_cpu"):
            parts.append(f"client CPU: attack {r['client_cpu']['attack']:.0f}%, normal client "
                         f"{r['client_cpu']['normal']:.0f}%")
        if r.get("health"):
            parts.append(f"{r['settle']:.0f} s after the attack: {r['health']}")
        print(f"- {r['title']}: " + "; ".join(parts) + ".")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("attack", choices=ATTACKS)
    normal = sub.add_parser("normal")
    for p in (run, normal):
        p.add_argument("--port", type=int, required=True)
        p.add_argument("--dzi", required=True)
        p.add_argument("--seconds", type=float, default=15)
        p.add_argument("--out", required=True)
        p.add_argument("--per-tick", type=int, default=3, help="tile requests on the kept-alive connection per tick")
        p.add_argument("--tick", type=float, default=0.010)
        p.add_argument("--fresh-interval", type=float, default=0.1, help="seconds between fresh connections")
        p.add_argument("--timeout", type=float, default=2.0, help="a normal request slower than this failed")
    run.add_argument("--pid", type=int, required=True)
    run.add_argument("--settle", type=float, default=3.0, help="seconds after the attack before the 'after' sample")
    mon = sub.add_parser("monitor")
    mon.add_argument("--pid", type=int, required=True)
    mon.add_argument("--interval", type=float, default=0.2)
    mon.add_argument("--out", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("--budget-mb", type=int, required=True)
    rep.add_argument("--budget-note", default="")
    rep.add_argument("--server-nofile", type=int, default=4096, help="the server's descriptor limit")
    rep.add_argument("--render-budget-mb", type=int, default=300, help="what renders may hold")
    rep.add_argument("files", nargs="+")
    args = ap.parse_args()
    {"run": run_main, "normal": normal_main, "monitor": monitor_main, "report": report_main}[args.command](args)


if __name__ == "__main__":
    main()
