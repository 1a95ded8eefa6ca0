"""The scale-out scenario of the shipped topologies (deploy/docker-compose.yml over a folder, test_varnish.py;
deploy/docker-compose.s3.yml over a bucket, test_bucket_varnish.py): the compose file's replicas read from the file,
replicas started with its options, and the two passes through Varnish — cold, from 8 client threads, with the
replica of one pyramid stopped a third of the way in; then warm, which must come from Varnish's cache."""
import http.client
import json
import os
import random
import re
import signal
import subprocess
import threading
import time

from proxy_checks import check, free_port, get, start_tiler
from varnish_process import start_varnish, stop_varnish

HIT_RATIO_FLOOR = 0.95


def compose_services(path):
    """The services of the compose file at `path`: {name: its block's text}. Read as text (the files are written in
    one layout: two-space service names under `services:`), for Tiler's build machines have no Docker."""
    with open(path) as f:
        text = f.read()
    services = text.split("\nservices:\n", 1)[1]
    blocks = re.split(r"^  ([\w-]+):.*\n", services, flags=re.M)
    return dict(zip(blocks[1::2], blocks[2::2]))


def compose_replicas(path):
    """(roots, options) of the `tiler serve` replicas of the compose file at `path`: each replica's ROOT, and the
    options they share beyond --host and --port, checked to be the same for each and to match the VCL's backends, so
    that a test runs the topology the compose file ships."""
    name = os.path.relpath(path, os.path.join(os.path.dirname(path), ".."))
    services = compose_services(path)
    check(f"{name} mounts the VCL the tests run", "./varnish/tiler.vcl:/etc/varnish/tiler.vcl" in services.get("varnish", ""))
    commands = [json.loads(found) for block in services.values() for found in re.findall(r'command: (\["serve".*\])', block)]
    roots, ports, options = [], [], set()
    for command in commands:
        roots.append(command[1])
        rest = command[2:]
        ports.append(rest[rest.index("--port") + 1])
        kept = [word for i, word in enumerate(rest) if word not in ("--host", "--port") and rest[i - 1] not in ("--host", "--port")]
        options.add(tuple(kept))
    check(f"{name}: the replicas listen where the VCL's backends are", ports == ["8081", "8082", "8083"], ports)
    check(f"{name}: the replicas share one set of options", len(options) == 1, options)
    return roots, list(next(iter(options), ()))


def start_replica(tiler, root, options, **popen):
    """A replica with a compose file's options, but an 8-MiB cache (this machine runs several); `popen`: env=…, cwd=…"""
    options = list(options)
    if "--cache-mb" in options:
        options[options.index("--cache-mb") + 1] = "8"
    return start_tiler(tiler, root, *options, **popen)


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
                    errors.append(f"{path}: {len(body)} bytes differ from the stored tile's {len(expected[path])}")
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


def failover_passes(folder, vcl, replicas, expected, descriptor):
    """Starts varnishd on `vcl` (working folder `folder`/varnish) in front of `replicas` [(process, port)] — its first
    two backends; the third points at a port nothing listens on: a listed replica that is down must cost nothing —
    and runs the two passes over every path of `expected` {path: body}, shuffled. Cold: a third of the way in, the
    replica that answers `descriptor` (the .dzi of one pyramid) gets SIGTERM; no client may see an error. Warm, with
    that replica still down: Varnish's hit ratio must be at least HIT_RATIO_FLOOR. Returns (Varnish's port, the paths
    in the order asked)."""
    paths = list(expected)
    random.Random(7).shuffle(paths)
    ports = [port for _, port in replicas] + [free_port()]
    varnish_port, varnish_dir = start_varnish(folder, vcl, ports, storage="malloc,128m")
    status, headers, _ = get(varnish_port, descriptor)
    check("Varnish answers a pyramid's descriptor from a replica", status == 200, status)
    backend = headers.get("X-Backend", "")
    victim = {"tiler1": 0, "tiler2": 1}.get(backend)
    check("the answer names the replica that served that pyramid", victim is not None, backend)
    victim = victim or 0

    stopped = threading.Event()

    def stop_at_a_third(count):
        if count >= len(paths) // 3 and not stopped.is_set():
            stopped.set()
            replicas[victim][0].send_signal(signal.SIGTERM)

    _, misses0 = varnish_counters(varnish_dir)
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
    _, misses1 = varnish_counters(varnish_dir)
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
    return varnish_port, paths


def stop_topology(folder, replicas):
    """Stops the varnishd failover_passes started in `folder`, if it did, and every replica still running."""
    stop_varnish(os.path.join(folder, "varnish"))
    for server, _ in replicas:
        if server.poll() is None:
            server.kill()
        server.wait()
