#!/usr/bin/env python3
"""Private images through real Varnish with the shipped VCL (deploy/varnish/tiler.vcl).

One `tiler serve --access` replica behind `varnishd`: a token's descriptor request passes through uncached with its
credentials; a signed tile URL is cached and shared by viewers holding different tokens (warm hit ratio of 10
viewers with 10 tokens); and once Varnish holds a tile, an unsigned or wrongly signed request for it is refused by
the replica, never answered from the cache. Prints `N passed, M failed` last; exits non-zero on any failure.
"""
import base64
import hashlib
import hmac
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
from proxy_checks import check, free_port, get, start_tiler, summary  # noqa: E402
from varnish_process import start_varnish, stop_varnish  # noqa: E402

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
VCL = os.path.join(REPO, "deploy", "varnish", "tiler.vcl")
VIEWERS = 10
HIT_RATIO_FLOOR = 0.9
SIGNING_KEY = "varnish-test-signing-key-" * 2


def signature_for(name, version, key, expires):
    """The signature of `name`'s tile URLs at `version` expiring at `expires`, as docs/private-images.md gives its format."""
    message = f"tile\n{name}\n{version}\n{expires}".encode()
    return base64.urlsafe_b64encode(hmac.new(key, message, hashlib.sha256).digest()[:16]).rstrip(b"=").decode()


def signed_expiry(query, name, version, key, near):
    """The expiry a signed tile query (`sig=SIG`) was made for: the window end, within a day of `near`, whose
    signature it is (the URL does not spell it out); 0 when none is."""
    for hour in range(-24, 25):
        expires = (int(near) // 3600 + hour) * 3600
        if query == f"sig={signature_for(name, version, key, expires)}":
            return expires
    return 0


def main():
    folder = tempfile.mkdtemp(prefix="tiler-varnish-private-")
    os.chmod(folder, 0o755)  # varnishd reads the VCL as its own unprivileged user
    replica, varnish_dir = None, os.path.join(folder, "varnish")
    try:
        root = os.path.join(folder, "root")
        source = os.path.join(folder, "p.jpg")
        subprocess.run([TILER, "sample", source, "--size", "1600x1200", "--seed", "5", "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", os.path.join(root, "secret"), "--tile-size", "128", "--quiet"], check=True)
        with open(os.path.join(folder, "k1.key"), "w") as f:
            f.write(SIGNING_KEY)
        policy = os.path.join(folder, "policy.json")
        with open(policy, "w") as f:
            json.dump({"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}, f)
        replica = start_tiler(TILER, root, "--trust-proxy", "--access", policy)
        port, _ = start_varnish(folder, VCL, [replica[1], free_port(), free_port()])

        def token(minutes):
            return subprocess.run([TILER, "token", "--access", policy, "--images", "secret/*", "--expires", f"{minutes}m"],
                                  capture_output=True, text=True, check=True).stdout.strip()

        status, headers, _ = get(port, "/images/secret/p.dzi")
        check("a descriptor without a token is refused through Varnish", status == 401 and "WWW-Authenticate" in headers, status)
        tokens = [token(60 + viewer) for viewer in range(VIEWERS)]
        check("each viewer holds a different token", len(set(tokens)) == VIEWERS or VIEWERS == 1)
        queries, versions = [], set()
        for t in tokens:
            status, headers, body = get(port, "/images/secret/p.dzi", {"Authorization": f"Bearer {t}"})
            check("a token's descriptor request reaches the replica uncached", status == 200 and headers.get("X-Cache") == "PASS",
                  (status, headers.get("X-Cache")))
            queries.append(headers.get("Tiler-Tile-Query", ""))
        status, headers, body = get(port, "/api/images", {"Authorization": f"Bearer {tokens[0]}"})
        entry = json.loads(body)[0]
        prefix = entry["dzi"][:-len(".dzi")]
        check("every viewer in the window is handed the same signed tile URLs", len(set(queries)) == 1 and "sig=" in queries[0], set(queries))
        query = queries[0]
        level = entry["maxLevel"] - 1
        tiles = [f"{prefix}_files/{level}/{c}_{r}.jpg" for c in range(4) for r in range(3)]
        outcomes = []
        # Varnish got the tile from Tiler after this instant: its max-age was counted from then or later.
        first_fetch = time.time()
        for viewer in range(VIEWERS):
            for path in tiles:
                status, headers, _ = get(port, f"{path}?{queries[viewer]}")
                check_ok = status == 200
                if not check_ok:
                    check(f"viewer {viewer} gets {path}", False, status)
                if viewer > 0:
                    outcomes.append(headers.get("X-Cache"))
        ratio = outcomes.count("HIT") / max(1, len(outcomes))
        print(f"{VIEWERS} viewers with {VIEWERS} tokens, {len(tiles)} tiles each: warm hit ratio {ratio:.3f} "
              f"(viewers 2–{VIEWERS}; floor {HIT_RATIO_FLOOR})", flush=True)
        check(f"viewers with different tokens share Varnish's copy (hit ratio >= {HIT_RATIO_FLOOR})", ratio >= HIT_RATIO_FLOOR, ratio)
        held = f"{tiles[0]}?{query}"
        status, headers, _ = get(port, held)
        key = SIGNING_KEY.encode()
        expires = signed_expiry(query, "secret/p", entry["version"], key, first_fetch)
        max_age = int(re.search(r"max-age=(\d+)", headers.get("Cache-Control", "max-age=-1")).group(1))
        check("Varnish holds the signed tile", status == 200 and headers.get("X-Cache") == "HIT", (status, headers.get("X-Cache")))
        age = int(headers.get("Age", "0"))
        # Tiler counted max-age from when it answered, after first_fetch: not a fraction of a second past the expiry.
        check("its max-age (less its Age in Varnish) never outlives the signature", 0 < max_age - age and max_age <= expires - first_fetch,
              (max_age, age, expires))
        signature = re.search(r"sig=([^&]+)", query).group(1)
        changed = ("A" if signature[5] != "A" else "B")
        forged = signature[:5] + changed + signature[6:]
        refused = {
            "unsigned": tiles[0],
            "wrongly signed": f"{tiles[0]}?{query.replace(signature, forged)}",
            # Windows that cannot be current: no replica within a window of this clock hands such URLs out.
            "signature for a later expiry": f"{tiles[0]}?sig={signature_for('secret/p', entry['version'], key, expires + 3 * 3600)}",
            "signature that expired": f"{tiles[0]}?sig={signature_for('secret/p', entry['version'], key, expires - 3 * 3600)}",
            "unversioned, unsigned": tiles[0].replace("@" + entry["version"], ""),
            "with a token in the query instead of a signature": f"{tiles[0]}?token=nonsense",
        }
        for what, path in refused.items():
            for attempt in range(2):
                status, headers, body = get(port, path)
                check(f"{what} request for a tile Varnish holds is refused (try {attempt + 1})",
                      status in (400, 401) and b"\xff\xd8" not in body[:2], (status, headers.get("X-Cache")))
        # A signed URL is one spelling only: every variant is refused before it reaches the cache or a replica, so
        # that no holder of it can make Varnish miss at will.
        variants = {
            "a second, wrong sig after it": f"{held}&sig={forged}",
            "a wrong sig before it": f"{tiles[0]}?sig={forged}&{query}",
            "another parameter before it": f"{tiles[0]}?x=1&{query}",
            "another parameter after it": f"{held}&x=1",
            "a trailing &": f"{held}&",
            "the signature twice": f"{held}&{query}",
        }
        for what, path in variants.items():
            status, headers, body = get(port, path)
            # By Varnish itself (no X-Cache: it never looked in its cache nor asked a replica).
            check(f"a signed URL with {what} is refused with 400 by Varnish", status == 400 and b"\xff\xd8" not in body[:2]
                  and headers.get("X-Cache") is None, (status, headers.get("X-Cache")))
        status, headers, _ = get(port, held)
        check("the signed URL itself is still a hit", status == 200 and headers.get("X-Cache") == "HIT", (status, headers.get("X-Cache")))
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the scenario ran to the end", False, repr(error))
    finally:
        stop_varnish(varnish_dir)
        if replica:
            replica[0].kill()
            replica[0].wait()
        time.sleep(0.5)
        shutil.rmtree(folder, ignore_errors=True)
    return summary("varnish (private images)")


if __name__ == "__main__":
    sys.exit(main())
