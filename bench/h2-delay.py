#!/usr/bin/env python3
"""A point-to-point link between two network namespaces that holds every packet DELAY ms each way: netem by hand.

Usage: h2-delay.py NS_A TUN_A NS_B TUN_B DELAY_MS   (as root; prints "ready" once both devices exist)

bench/h2-view.sh uses it where the kernel has no netem (`tc qdisc add … netem` answers "Specified qdisc kind is
unknown" when CONFIG_NET_SCH_NETEM is not set, as on the Firecracker kernels the benches run on). It opens a TUN
device in each namespace (it enters them with setns(2); the file descriptors stay bound to their devices) and copies
each IP packet read from one to the other once DELAY ms have passed since it was read — what netem's `delay` does on
each side of a veth pair: no loss, no rate limit, no reordering (one FIFO per direction, as the delay is constant).
The devices are not persistent: they vanish with this process, which ends on SIGTERM or SIGINT.
Standard library only; /usr/bin/python3 (Debian's 3.11 has no os.setns, hence ctypes).
"""
import collections
import ctypes
import fcntl
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)


def enter(namespace):
    fd = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {namespace}")
    finally:
        os.close(fd)


def open_tun(namespace, name):
    """A new TUN device NAME in NAMESPACE (raw IP packets, no packet-information header), non-blocking."""
    enter(namespace)
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main():
    ns_a, tun_a, ns_b, tun_b, delay_ms = sys.argv[1:6]
    delay = float(delay_ms) / 1000
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    a = open_tun(ns_a, tun_a)
    b = open_tun(ns_b, tun_b)
    libc.setns(home, CLONE_NEWNET)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Whoever started us configures the devices now; a realtime priority keeps the held packets' release on time
    # while Chromium and the server load both cores (refused without the capability: then as it comes).
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except OSError:
        pass
    print("ready", flush=True)
    peer = {a: b, b: a}
    held = {a: collections.deque(), b: collections.deque()}  # by the device the packets are to be written to
    while True:
        now = time.monotonic()
        for out, queue in held.items():
            while queue and queue[0][0] <= now:
                try:
                    os.write(out, queue.popleft()[1])
                except OSError:
                    pass  # the device is down (being torn down): the packet is lost, as on a dead link
        due = min((queue[0][0] for queue in held.values() if queue), default=None)
        # select(2), not poll(2): its timeout is in microseconds, poll's in whole milliseconds (rounded up).
        timeout = None if due is None else max(0, due - time.monotonic())
        for fd in select.select([a, b], [], [], timeout)[0]:
            stamp = time.monotonic()
            # Everything waiting now: one wake-up per burst, not per packet.
            for _ in range(256):
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                held[peer[fd]].append((stamp + delay, packet))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
