"""The inbox's drop and view: how soon after a JPEG is moved into `tiler serve --inbox DIR` its image is listed and its
coarse view is there (every tile of the first level at least 2048 px across answering 200), one fresh server a round.
Compare with `djpeg -scale 1/8` of the same file, the floor under any coarse view of it.

Usage: python3 bench/inbox-to-view.py TILER JPEG [ROUNDS] [PORT]   (TILER: a release build; JPEG: e.g. `tiler sample
       big.jpg --size 32768x32768 --quality 60 --subsampling 420`; the rounds' work folder is beside the JPEG)
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

tiler, source = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
port = int(sys.argv[4]) if len(sys.argv) > 4 else 18093
base = os.path.join(os.path.dirname(os.path.abspath(source)), "inbox-to-view")
url = f"http://127.0.0.1:{port}"


def get(path):
    try:
        with urllib.request.urlopen(url + path, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""
    except OSError:
        return 0, b""


def coarse_view_is_there(entry):
    """Whether every tile of the first level at least 2048 px across answers 200."""
    top = entry["maxLevel"]
    for level in range(top + 1):
        size = (entry["width"] + (1 << (top - level)) - 1) >> (top - level)
        if size >= 2048:
            break
    grid = (size + 255) // 256
    prefix = entry["dzi"].replace(".dzi", f"_files/{level}/")
    return all(get(f"{prefix}{column}_{row}.jpg")[0] == 200 for column in range(grid) for row in range(grid))


for number in range(1, rounds + 1):
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base + "/root")
    os.makedirs(base + "/inbox")
    staged = base + "/staged.jpg"
    shutil.copy(source, staged)
    os.sync()  # no writeback of the copy under the slicing
    server = subprocess.Popen([tiler, "serve", base + "/root", "--inbox", base + "/inbox", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while get("/healthz")[0] != 200:
            time.sleep(0.05)
        time.sleep(1.0)
        moved = time.monotonic()
        os.rename(staged, base + "/inbox/big.jpg")
        listed = coarse = None
        while coarse is None and time.monotonic() - moved < 120:
            status, body = get("/api/images")
            entry = next((e for e in (json.loads(body) if status == 200 else []) if e["name"] == "big"), None)
            if entry and listed is None:
                listed = time.monotonic() - moved
            if entry and coarse_view_is_there(entry):
                coarse = time.monotonic() - moved
            time.sleep(0.02)
        print(f"round {number}: listed {listed:.2f} s, coarse view {coarse:.2f} s after the move", flush=True)
    finally:
        server.terminate()
        server.wait()
shutil.rmtree(base, ignore_errors=True)
