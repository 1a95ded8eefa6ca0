#!/usr/bin/env python3
"""The re-slice part of bench/scale-out.sh: re-slices one pyramid with --force while fetching it through Varnish.

Before: learns the pyramid's announced descriptor URL from /api/images (through Varnish), and the bytes of a sample
of tiles before and after (the new pyramid is first sliced into a scratch folder, so both are known). Then re-slices
into ROOT with --force and, for 40 s, fetches through Varnish: /api/images, the announced descriptor, the sample
tiles under the announced URL, and the same tiles under the unversioned URL. Reports:
  - how long after the re-slice finished /api/images named a new descriptor URL, and the new tiles appeared under it;
  - violations: a URL that answered an old tile after answering the new one, or under a version announced after the
    re-slice; a versioned URL that ever answered another version's bytes;
  - what the unversioned tile URLs answered at the end (old bytes = a stale cache).
"""
import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import time


def fetch(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def announced(port, name):
    status, body = fetch(port, "/api/images")
    if status != 200:
        return None
    listing = json.loads(body)
    images = listing.get("images", listing) if isinstance(listing, dict) else listing
    for image in images:
        if image.get("name") == name:
            return image.get("dzi")
    return None


def main():
    parser = argparse.ArgumentParser()
    for option in ["tiler", "root", "name", "source", "work"]:
        parser.add_argument("--" + option, required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    files = os.path.join(args.root, args.name + "_files")
    levels = sorted(int(level) for level in os.listdir(files))
    sample = []
    for level in levels[-2:]:
        names = sorted(os.listdir(os.path.join(files, str(level))))
        sample += [f"{level}/{n}" for n in random.Random(level).sample(names, min(20, len(names)))]
    old = {}
    for tile in sample:
        with open(os.path.join(files, tile), "rb") as f:
            old[tile] = f.read()
    scratch = os.path.join(args.work, "reslice-new")
    subprocess.run([args.tiler, "slice", args.source, "-o", scratch, "--name", args.name, "--quiet"], check=True)
    new = {}
    for tile in sample:
        with open(os.path.join(scratch, args.name + "_files", tile), "rb") as f:
            new[tile] = f.read()
    shutil.rmtree(scratch)

    def classify(body, tile):
        return "old" if body == old[tile] else "new" if body == new[tile] else "other"

    before_url = announced(args.port, args.name)
    seen = {}  # url → list of (time, class)
    start = time.monotonic()
    slicer = subprocess.Popen([args.tiler, "slice", args.source, "-o", args.root, "--name", args.name, "--force",
                               "--quiet"])
    finished = None
    first_new_url = first_new_tiles = None
    unversioned_end = {}
    while True:
        now = time.monotonic()
        if finished is None and slicer.poll() is not None:
            finished = now
        if finished is not None and now - finished > 40:
            break
        url = announced(args.port, args.name)
        if url and url != before_url and first_new_url is None and finished is not None:
            first_new_url = now - finished
        prefix = url[: -len(".dzi")] + "_files/" if url else None
        for tile in random.sample(sample, 8):
            if prefix:
                status, body = fetch(args.port, prefix + tile)
                if status == 200:
                    kind = classify(body, tile)
                    seen.setdefault((url, prefix + tile), []).append((now, kind, finished is not None))
                    if kind == "new" and url != before_url and first_new_tiles is None and finished is not None:
                        first_new_tiles = now - finished
            plain = f"/images/{args.name}_files/{tile}"
            status, body = fetch(args.port, plain)
            if status == 200:
                unversioned_end[tile] = classify(body, tile)
        time.sleep(0.05)

    violations = []
    versioned = before_url != f"/images/{args.name}.dzi"
    for (url, path), answers in seen.items():
        kinds = [kind for _, kind, _ in answers]
        if "other" in kinds:
            violations.append(f"{path}: bytes of neither pyramid")
        if versioned:
            if url == before_url and "new" in kinds:
                violations.append(f"{path}: the old version's URL answered a new tile")
            if url != before_url and "old" in kinds:
                violations.append(f"{path}: the new version's URL answered an old tile")
        else:
            first_new = next((i for i, kind in enumerate(kinds) if kind == "new"), None)
            if first_new is not None and "old" in kinds[first_new:]:
                violations.append(f"{path}: answered an old tile after the new one")
    print(f"re-slice of {args.name}: took {finished - start:.1f} s; descriptor URL before {before_url}, "
          f"after {announced(args.port, args.name)}")
    if versioned:
        print("  new descriptor URL through Varnish: "
              + (f"{first_new_url:.1f} s after the re-slice finished" if first_new_url is not None else "not within 40 s"))
        print("  new tiles under it: "
              + (f"{first_new_tiles:.1f} s after the re-slice finished" if first_new_tiles is not None else "not within 40 s"))
    else:
        print("  descriptor URL is unversioned: old and new tiles share URLs")
    stale = sum(1 for kind in unversioned_end.values() if kind == "old")
    print(f"  unversioned tile URLs at the end: {stale} of {len(unversioned_end)} still answer the old tile")
    print(f"  violations (a URL answering another version's bytes): {len(violations)}")
    for line in violations[:5]:
        print("    " + line)


if __name__ == "__main__":
    main()
