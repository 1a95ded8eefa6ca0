#!/usr/bin/env python3
"""Varnish in front of two Tiler replicas over one S3 bucket, no shared file system (deploy/docker-compose.s3.yml).

Slices three small pyramids into SZIs, uploads them to a fresh bucket of the test gateway (a Ceph RADOS Gateway:
scripts/test's, named by S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION, else one started here with
Tests/Support/s3/ceph-rgw.sh), keeps their tiles' bytes in memory and deletes them from the disk. Then it starts two
`tiler serve s3://BUCKET/PREFIX/` replicas with the compose variant's options, each in its own empty folder with the
AWS_* variables naming the gateway, and a real `varnishd` on the shipped VCL in front of them, as test_varnish.py does
for a folder (the third backend pointing at a port nothing listens on). Checks:
  1. the compose variant: the folder variant's replica options, an s3:// root for each, no volume for a replica, and
     the store's settings passed by name from the operator's environment, never written into the file;
  2. each replica was given the bucket alone (its command line names no local ROOT nor store), and no pyramid is on
     the local disk while they serve;
  3. cold pass (Tests/Varnish/scale_out.py): every tile URL once, shuffled, from 8 client threads; a third of the
     way in, the replica that serves pyramid `a` gets SIGTERM. No request may fail (status, or bytes that differ
     from the tile in the SZI);
  4. warm pass: the same URLs again, with that replica still down: Varnish's hit ratio must be at least 0.95.
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
import uuid
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support"))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support", "s3"))
from proxy_checks import check, get, summary  # noqa: E402
from scale_out import compose_replicas, compose_services, failover_passes, start_replica, stop_topology  # noqa: E402
import s3_client  # noqa: E402

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
VCL = os.path.join(REPO, "deploy", "varnish", "tiler.vcl")
COMPOSE = os.path.join(REPO, "deploy", "docker-compose.yml")
COMPOSE_S3 = os.path.join(REPO, "deploy", "docker-compose.s3.yml")
GATEWAY = os.path.join(REPO, "Tests", "Support", "s3", "ceph-rgw.sh")
# The images, by their names: the bucket's keys under the prefix, less `.szi`.
NAMES = ["a", "b", "atlas/c"]
PREFIX = "scale-out/"


def gateway(folder):
    """The S3_* settings of the test gateway: scripts/test's when S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY are set,
    else those of one started in `folder` (stopped by stop_gateway)."""
    names = ("S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY")
    if all(os.environ.get(name) for name in names):
        settings = {name: os.environ[name] for name in names}
        settings["S3_REGION"] = os.environ.get("S3_REGION") or "us-east-1"
        print(f"the gateway: {settings['S3_ENDPOINT']} (from S3_ENDPOINT)", flush=True)
        return settings
    started = time.monotonic()
    run = subprocess.run([GATEWAY, "start", folder], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{GATEWAY} start failed: {run.stderr.strip()[-600:]}")
    settings = s3_client.load_env(folder)
    print(f"the gateway: {settings['S3_ENDPOINT']}, started in {time.monotonic() - started:.1f} s", flush=True)
    return settings


def stop_gateway(folder):
    """Stops the gateway started in `folder`, if one was (its daemons, and the folder)."""
    if os.path.isdir(folder):
        subprocess.run([GATEWAY, "stop", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def replica_environment(settings):
    """This process's environment with the AWS_* variables naming the gateway (and no other AWS_* setting)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID=settings["S3_ACCESS_KEY"], AWS_SECRET_ACCESS_KEY=settings["S3_SECRET_KEY"],
               AWS_ENDPOINT_URL=settings["S3_ENDPOINT"], AWS_REGION=settings["S3_REGION"])
    return env


def compose_variant_checks(options):
    """The bucket variant of the compose file beside the folder variant whose replica options are `options`; returns
    the options of the bucket variant's replicas."""
    roots, s3_options = compose_replicas(COMPOSE_S3)
    check("the bucket variant's replicas have the folder variant's options", s3_options == options, (s3_options, options))
    check("each of the bucket variant's replicas serves an s3:// root",
          len(roots) == 3 and all(root.startswith("s3://") for root in roots), roots)
    replicas = {name: block for name, block in compose_services(COMPOSE_S3).items() if name != "varnish"}
    check("no replica of the bucket variant mounts a volume", replicas and all("volumes:" not in block for block in replicas.values()),
          list(replicas))
    passed = re.findall(r"^\s+- (AWS_\w+)(.*)$", replicas.get("tiler1", ""), re.M)
    check("the bucket variant passes the store's settings by name, from the operator's environment",
          {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL", "AWS_REGION"} <= {name for name, _ in passed}
          and all(rest == "" for _, rest in passed), passed)
    with open(COMPOSE_S3) as f:
        text = f.read()
    check("the bucket variant writes no credential", not re.search(r"AWS_\w+\s*[=:]\s*\S", text), "a value after an AWS_ name")
    return s3_options


def serve_arguments(pid):
    """The arguments a running `tiler serve` was given after `serve`, from its /proc command line."""
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        words = f.read().decode().split("\0")[:-1]
    return words[words.index("serve") + 1:]


def main():
    folder = tempfile.mkdtemp(prefix="tiler-varnish-bucket-")
    os.chmod(folder, 0o755)  # varnishd reads the VCL as its own unprivileged user
    replicas, gateway_dir = [], os.path.join(folder, "gateway")
    s3, bucket = None, "tiler-varnish-" + uuid.uuid4().hex[:12]
    try:
        _, options = compose_replicas(COMPOSE)
        options = compose_variant_checks(options)
        settings = gateway(gateway_dir)
        s3 = s3_client.client(settings)
        s3_client.create_bucket(s3, bucket)
        pyramids = os.path.join(folder, "pyramids")
        tiles = {}
        for index, name in enumerate(NAMES):
            source = os.path.join(folder, f"{index}.jpg")
            szi = os.path.join(pyramids, name + ".szi")
            subprocess.run([TILER, "sample", source, "--size", "1600x1200", "--seed", str(index + 1), "--quiet"], check=True)
            subprocess.run([TILER, "slice", source, "-o", szi, "--tile-size", "64", "--quiet"], check=True)
            os.remove(source)
            s3_client.put_file(s3, bucket, PREFIX + name + ".szi", szi)
            with zipfile.ZipFile(szi) as archive:
                tiles[name] = {entry.split("_files/", 1)[1]: archive.read(entry) for entry in archive.namelist() if "_files/" in entry}
        # The tiles' bytes stay in memory only: the replicas can have them from the bucket alone.
        shutil.rmtree(pyramids)
        left = [os.path.join(d, f) for d, _, files in os.walk(folder) for f in files if f.endswith((".szi", ".jpg", ".dzi"))]
        check("no pyramid is on the local disk while the replicas serve", not left, left)
        root = f"s3://{bucket}/{PREFIX}"
        env = replica_environment(settings)
        for index in range(2):
            home = os.path.join(folder, f"replica{index + 1}")
            os.mkdir(home)
            replicas.append(start_replica(TILER, root, options, env=env, cwd=home))
        for index, (server, _) in enumerate(replicas):
            arguments = serve_arguments(server.pid)
            check(f"replica {index + 1} was given the bucket alone (no local ROOT nor store)",
                  arguments[0] == root and "--store" not in arguments
                  and not any(word.startswith("/") or word.startswith(".") for word in arguments), arguments)
        # The URLs the replicas hand out are versioned (`NAME@VERSION_files/…`): immutable, so Varnish keeps them.
        listings = []
        for _, port in replicas:
            deadline = time.time() + 20
            while True:
                _, _, listing = get(port, "/api/images")
                listed = {item["name"]: item["dzi"][:-len(".dzi")] for item in json.loads(listing)}
                if set(listed) >= set(NAMES) or time.time() > deadline:
                    break
                time.sleep(0.2)
            listings.append(listed)
        check("each replica serves every pyramid of the bucket, under the same versioned URL",
              all(listed == listings[0] for listed in listings) and sorted(listings[0]) == sorted(NAMES)
              and all(re.fullmatch(r"/images/%s@[0-9a-f]{12}" % name, listings[0][name]) for name in NAMES), listings)
        prefixes = listings[0]
        expected = {f"{prefixes[name]}_files/{tile}": body for name in NAMES for tile, body in tiles[name].items()}
        failover_passes(folder, VCL, replicas, expected, prefixes["a"] + ".dzi")
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the scenario ran to the end", False, repr(error))
    finally:
        stop_topology(folder, replicas)
        if s3:
            try:
                s3_client.delete_bucket(s3, bucket)
            except Exception as error:  # the gateway is thrown away with its folder, or is scripts/test's
                print(f"the bucket {bucket} was not deleted: {error!r}", flush=True)
        stop_gateway(gateway_dir)
        time.sleep(0.5)
        shutil.rmtree(folder, ignore_errors=True)
    return summary("varnish (one bucket)")


if __name__ == "__main__":
    sys.exit(main())
