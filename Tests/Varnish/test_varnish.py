#!/usr/bin/env python3
"""Varnish in front of two Tiler replicas, with the shipped VCL (deploy/varnish/tiler.vcl).

Slices three small pyramids, starts two `tiler serve` replicas on 127.0.0.1 over the same folder, and a real
`varnishd` whose VCL is the shipped one with its backend ports pointed at the replicas (the third backend is left
pointing at a port nothing listens on: a listed replica that is down must cost nothing). Then:
  1. cold pass: every tile URL once, shuffled, from 8 client threads; a third of the way in, the replica that
     serves pyramid `a` gets SIGTERM. No request may fail (status, or bytes that differ from the file on disk).
  2. warm pass: the same URLs again, with that replica still down: Varnish's hit ratio must be at least 0.95.
     (1 and 2 are scale_out.py's, which test_bucket_varnish.py runs over a bucket.)
  3. the debugging and pass-through rules: X-Cache and Age on tiles, /metrics and /healthz and the visible-rect
     query never from the cache.
  4. the cache-poisoning scenario (Tests/Support/proxy_checks.py): hosts the VCL does not name refused, forged
     forwarding headers ignored, the next visitor's cached info.json and redirect name the public host.
Prints `N passed, M failed` last; exits non-zero on any failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support"))
from proxy_checks import check, get, poisoning_checks, summary  # noqa: E402
from scale_out import compose_replicas, failover_passes, start_replica, stop_topology  # noqa: E402

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
VCL = os.path.join(REPO, "deploy", "varnish", "tiler.vcl")
COMPOSE = os.path.join(REPO, "deploy", "docker-compose.yml")


def main():
    folder = tempfile.mkdtemp(prefix="tiler-varnish-")
    os.chmod(folder, 0o755)  # varnishd reads the VCL as its own unprivileged user
    replicas = []
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
        _, options = compose_replicas(COMPOSE)
        check("the compose file's replicas trust the proxy (Varnish sets the forwarding headers)", "--trust-proxy" in options, options)
        replicas = [start_replica(TILER, root, options) for _ in range(2)]
        # The URLs the replicas hand out are versioned (`NAME@VERSION_files/…`): immutable, so Varnish keeps them.
        _, _, listing = get(replicas[0][1], "/api/images")
        prefixes = {item["name"]: item["dzi"][:-len(".dzi")] for item in json.loads(listing)}
        check("every pyramid is announced under a versioned URL",
              all(re.fullmatch(r"/images/%s@[0-9a-f]{12}" % name, prefixes.get(name, "")) for name in ["a", "b", "c"]), prefixes)
        expected = {re.sub(r"^/images/([^/]+)_files/", lambda m: prefixes[m.group(1)] + "_files/", path): body
                    for path, body in expected.items()}
        varnish_port, paths = failover_passes(folder, VCL, replicas, expected, prefixes["a"] + ".dzi")

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
        stop_topology(folder, replicas)
        time.sleep(0.5)
        shutil.rmtree(folder, ignore_errors=True)
    return summary("varnish")


if __name__ == "__main__":
    sys.exit(main())
