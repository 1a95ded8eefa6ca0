#!/usr/bin/env python3
"""Varnish in front of two Tiler replicas, with the shipped VCL (deploy/varnish/tiler.vcl).

Slices three small pyramids, starts two `tiler serve` replicas on 127.0.0.1 over the same folder, and a real
`varnishd` whose VCL is the shipped one with its backend ports pointed at the replicas (the third backend is left
pointing at a port nothing listens on: a listed replica that is down must cost nothing). Then:
  1. cold pass: every tile URL once, shuffled, from 8 client threads; a third of the way in, the replica that
     serves pyramid `a` gets SIGTERM. No request may fail (status, or bytes that differ from the file on disk).
  2. warm pass: the same URLs again, with that replica still down: Varnish's hit ratio must be at least 0.95.
  3. the debugging and pass-through rules: X-Cache and Age on tiles, /metrics and /healthz and the visible-rect
     query never from the cache.
  4. the cache-poisoning scenario (Tests/Support/proxy_checks.py): hosts the VCL does not name refused, forged
     forwarding headers ignored, the next visitor's cached info.json and redirect name the public host.
Prints `N passed, M failed` last; exits non-zero on any failure.
"""
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support"))
from proxy_checks import PUBLIC_HOST, check, free_port, get, poisoning_checks, start_tiler, summary  # noqa: E402
from varnish_process import start_varnish, stop_varnish  # noqa: E402

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
VCL = os.path.join(REPO, "deploy", "varnish", "tiler.vcl")
HIT_RATIO_FLOOR = 0.95


COMPOSE = os.path.join(REPO, "deploy", "docker-compose.yml")


def compose_replica_options():
    """The options deploy/docker-compose.yml gives its replicas (beyond ROOT, --host and --port), checked to be the
    same for each and to match the VCL's backends, so that this test runs the topology the compose file ships."""
    with open(COMPOSE) as f:
        text = f.read()
    check("the compose file mounts the VCL this test runs", "./varnish/tiler.vcl:/etc/varnish/tiler.vcl" in text)
    commands = [json.loads(found) for found in re.findall(r'command: (\["serve".*\])', text)]
    ports = []
    options = set()
    for command in commands:
        rest = command[2:]
        port = rest[rest.index("--port") + 1]
        ports.append(port)
        kept = [word for i, word in enumerate(rest) if word not in ("--host", "--port") and rest[i - 1] not in ("--host", "--port")]
        options.add(tuple(kept))
    check("the compose file's replicas listen where the VCL's backends are", ports == ["8081", "8082", "8083"], ports)
    check("the compose file's replicas share one set of options", len(options) == 1, options)
    return list(next(iter(options)))


def start_replica(root, options):
    """A replica with the compose file's options, but an 8-MiB cache (this machine runs several)."""
    options = list(options)
    if "--cache-mb" in options:
        options[options.index("--cache-mb") + 1] = "8"
    return start_tiler(TILER, root, *options)


def varnish_counters(workdir):
    out = subprocess.run(["varnishstat", "-n", workdir, "-1", "-f", "MAIN.cache_hit", "-f", "MAIN.cache_miss"],
                         capture_output=True, text=True, check=True).stdout
    values = dict(re.findall(r"^MAIN\.(\w+)\s+(\d+)", out, re.M))
    return int(values.get("cache_hit", 0)), int(values.get("cache_miss", 0))


def load(port, paths, expected, threads=8, on_progress=None):
    """Requests every path once from `threads` keep-alive clients; returns (errors, latencies in seconds, the
    X-Cache value of each 200 answer)."""
    queue = list(paths)
    lock = threading.Lock()
    errors, latencies, done, outcomes = [], [], [0], []

    def worker():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        while True:
            with lock:
                if not queue:
                    break
                path = queue.pop()
            started = time.monotonic()
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    errors.append(f"{path}: {response.status}")
                elif body != expected[path]:
                    errors.append(f"{path}: {len(body)} bytes differ from the file's {len(expected[path])}")
                else:
                    outcomes.append(response.getheader("X-Cache", ""))
            except (OSError, http.client.HTTPException) as error:
                errors.append(f"{path}: {error!r}")
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            latencies.append(time.monotonic() - started)
            with lock:
                done[0] += 1
                count = done[0]
            if on_progress:
                on_progress(count)
        connection.close()

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return errors, latencies, outcomes


def main():
    folder = tempfile.mkdtemp(prefix="tiler-varnish-")
    os.chmod(folder, 0o755)  # varnishd reads the VCL as its own unprivileged user
    replicas, varnish_dir = [], os.path.join(folder, "varnish")
    try:
        root = os.path.join(folder, "root")
        for index, name in enumerate(["a", "b", "c"]):
            source = os.path.join(folder, name + ".jpg")
            subprocess.run([TILER, "sample", source, "--size", "1600x1200", "--seed", str(index + 1), "--quiet"], check=True)
            subprocess.run([TILER, "slice", source, "-o", root, "--tile-size", "64", "--quiet"], check=True)
        expected = {}
        for name in ["a", "b", "c"]:
            files = os.path.join(root, name + "_files")
            for dirpath, _, filenames in os.walk(files):
                for filename in filenames:
                    path = os.path.join(dirpath, filename)
                    with open(path, "rb") as f:
                        expected["/images/" + os.path.relpath(path, root)] = f.read()
        options = compose_replica_options()
        check("the compose file's replicas trust the proxy (Varnish sets the forwarding headers)", "--trust-proxy" in options, options)
        replicas = [start_replica(root, options) for _ in range(2)]
        # The URLs the replicas hand out are versioned (`NAME@VERSION_files/…`): immutable, so Varnish keeps them.
        _, _, listing = get(replicas[0][1], "/api/images")
        prefixes = {item["name"]: item["dzi"][:-len(".dzi")] for item in json.loads(listing)}
        check("every pyramid is announced under a versioned URL",
              all(re.fullmatch(r"/images/%s@[0-9a-f]{12}" % name, prefixes.get(name, "")) for name in ["a", "b", "c"]), prefixes)
        expected = {re.sub(r"^/images/([^/]+)_files/", lambda m: prefixes[m.group(1)] + "_files/", path): body
                    for path, body in expected.items()}
        paths = list(expected)
        random.Random(7).shuffle(paths)
        ports = [port for _, port in replicas] + [free_port()]
        varnish_port, _ = start_varnish(folder, VCL, ports, storage="malloc,128m")
        status, headers, _ = get(varnish_port, prefixes["a"] + ".dzi")
        check("Varnish answers a pyramid's descriptor from a replica", status == 200, status)
        backend = headers.get("X-Backend", "")
        victim = {"tiler1": 0, "tiler2": 1}.get(backend)
        check("the answer names the replica that served pyramid a", victim is not None, backend)
        victim = victim or 0

        stopped = threading.Event()

        def stop_at_a_third(count):
            if count >= len(paths) // 3 and not stopped.is_set():
                stopped.set()
                replicas[victim][0].send_signal(signal.SIGTERM)

        hits0, misses0 = varnish_counters(varnish_dir)
        # TILER_VARNISHLOG=FILE records the cold pass's failed transactions for `varnishlog -r FILE`.
        vlog = None
        if os.environ.get("TILER_VARNISHLOG"):
            vlog = subprocess.Popen(["varnishlog", "-n", varnish_dir, "-g", "request", "-q", "RespStatus >= 500",
                                     "-w", os.environ["TILER_VARNISHLOG"]])
        errors, latencies, cold = load(varnish_port, paths, expected, on_progress=stop_at_a_third)
        replicas[victim][0].wait(timeout=30)
        if vlog:
            time.sleep(1)
            vlog.terminate()
        hits1, misses1 = varnish_counters(varnish_dir)
        latencies.sort()
        print(f"cold pass: {len(paths)} tiles, {cold.count('MISS')} answered as misses ({misses1 - misses0} counted by "
              f"varnishstat so far), p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, "
              f"max {latencies[-1] * 1000:.1f} ms; replica {victim + 1} stopped a third of the way in", flush=True)
        check("the replica was stopped mid-load", stopped.is_set() and replicas[victim][0].returncode is not None)
        check("no client saw an error while a replica stopped", not errors, f"{len(errors)} errors, first: {errors[:3]}")

        errors, _, warm = load(varnish_port, paths, expected)
        # From each answer's X-Cache: varnishstat's counters lag behind under load (worker threads publish theirs
        # in batches), which once made a fully cached pass look 42% missed.
        ratio = warm.count("HIT") / max(1, len(warm))
        print(f"warm pass: hit ratio {ratio:.3f} (floor {HIT_RATIO_FLOOR}; {warm.count('HIT')} of {len(warm)} answers said HIT)",
              flush=True)
        check("the warm pass has no errors", not errors, errors[:3])
        check(f"the warm pass comes from Varnish's cache (hit ratio >= {HIT_RATIO_FLOOR})", ratio >= HIT_RATIO_FLOOR, ratio)

        status, headers, _ = get(varnish_port, paths[0])
        check("a cached tile says X-Cache: HIT with an Age", status == 200 and headers.get("X-Cache") == "HIT"
              and "Age" in headers, headers)
        # A query on a public tile does not make another cache key: the VCL drops it (the replicas ignore it).
        for query in ["?x=1", "?cachebust=12345", "?x=1&y=2&"]:
            status, headers, _ = get(varnish_port, paths[0] + query)
            check(f"a tile asked with {query} is the cached one", status == 200 and headers.get("X-Cache") == "HIT", headers.get("X-Cache"))
        # The replicas trust Varnish's X-Forwarded-* headers: IIIF ids name the host the client asked Varnish for,
        # only hosts the VCL names are served, and a client's own forwarding headers are dropped by the VCL.
        poisoning_checks(varnish_port, "b", "X-Cache")
        for path in ["/metrics", "/healthz", "/api/images/b/visible?x=0&y=0&width=800&height=600&zoomScale=0.5"]:
            statuses = [get(varnish_port, path) for _ in range(2)]
            check(f"{path} passes through uncached", all(s == 200 and h.get("X-Cache") == "PASS" for s, h, _ in statuses),
                  [(s, h.get("X-Cache")) for s, h, _ in statuses])
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the scenario ran to the end", False, repr(error))
    finally:
        stop_varnish(varnish_dir)
        for server, _ in replicas:
            if server.poll() is None:
                server.kill()
            server.wait()
        time.sleep(0.5)
        shutil.rmtree(folder, ignore_errors=True)
    return summary("varnish")


if __name__ == "__main__":
    sys.exit(main())
