#!/usr/bin/env python3
"""OpenSeadragon as a real client of Tiler: one viewer on a pyramid's DZI descriptor, one on its IIIF info.json —
for a sliced JPEG pyramid, a WebP one, and a pyramidal TIFF of the same picture served in place.

Slices a `tiler sample` picture, serves it with `tiler serve --port 0 --public <a folder holding page.html and
OpenSeadragon>`, opens the page in headless Chromium and checks: both viewers open, load their tiles with no failure,
draw the picture (not a blank canvas), agree with each other, and the IIIF viewer's tile requests are answered as
stored tiles (the server's IIIF fast path). Prints `N passed, M failed` last; exits non-zero on any failure.
Usage: test_openseadragon.py OPENSEADRAGON_JS
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from PIL import Image, ImageChops, ImageStat
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
checks = []


def check(name, condition, detail=""):
    checks.append((name, bool(condition)))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)


def wait_fully_loaded(driver, seconds=60):
    """Whether both viewers have every tile of their current view within `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        time.sleep(0.5)
        if driver.execute_script(
                "return ['dzi', 'iiif'].every(id => { const item = window.viewers[id].world.getItemAt(0);"
                " return item && item.getFullyLoaded(); })"):
            return True
    return False


def main():
    folder = tempfile.mkdtemp(prefix="tiler-osd-")
    server = None
    driver = None
    try:
        public = os.path.join(folder, "public")
        os.makedirs(public)
        shutil.copy(os.path.join(HERE, "page.html"), os.path.join(public, "index.html"))
        shutil.copy(sys.argv[1], os.path.join(public, "openseadragon.js"))
        source = os.path.join(folder, "pic.jpg")
        subprocess.run([TILER, "sample", source, "--size", "2400x1600", "--quality", "95", "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", os.path.join(folder, "root"), "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", os.path.join(folder, "root"), "--name", "picwebp", "--format", "webp",
                        "--quality", "90", "--quiet"], check=True)
        # The same picture as a pyramidal TIFF (vips), served in place.
        subprocess.run(["vips", "tiffsave", source, os.path.join(folder, "root", "pictif.tif"), "--tile", "--tile-width", "256",
                        "--tile-height", "256", "--pyramid", "--compression", "jpeg", "--Q", "90"], check=True)
        server = subprocess.Popen([TILER, "serve", os.path.join(folder, "root"), "--port", "0", "--public", public],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = server.stdout.readline()
        url = next(word for word in line.split() if word.startswith("http://"))

        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,500"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.get(url + "?image=pic")
        done = wait_fully_loaded(driver)
        results = driver.execute_script("return window.results")
        for viewer in ["dzi", "iiif"]:
            record = results[viewer]
            check(f"{viewer}: OpenSeadragon opened the source", record["opened"], record)
            check(f"{viewer}: tiles loaded", record["loaded"] > 0, record)
            check(f"{viewer}: no open or tile failures", not record["failed"], record["failed"])
        check("both viewers fully loaded within 60 s", done)

        shot = os.path.join(folder, "shot.png")
        driver.save_screenshot(shot)
        image = Image.open(shot).convert("RGB")
        left = image.crop((0, 0, 600, 400))
        right = image.crop((600, 0, 1200, 400))
        spread = ImageStat.Stat(left).stddev
        check("the DZI viewer drew the picture, not a blank canvas", min(spread) > 10, spread)
        difference = sum(ImageStat.Stat(ImageChops.difference(left, right)).mean) / 3
        check("the IIIF viewer draws the same picture as the DZI viewer", difference < 6, f"mean difference {difference:.2f}")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check("no console errors", not errors, errors)

        requested = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(n => n.includes('/iiif/3/') && !n.endsWith('info.json'))")
        # The server's stored-tile fast path answers with X-Cache; a rendered region carries none.
        stored = [name for name in requested if urllib.request.urlopen(name, timeout=10).headers.get("X-Cache")]
        check("every IIIF tile OpenSeadragon asked for was served as a stored tile", requested and stored == requested,
              f"{len(stored)} of {len(requested)}: {sorted(set(requested) - set(stored))[:3]}")
        metrics = urllib.request.urlopen(url + "metrics", timeout=10).read().decode()
        iiif_lines = [line for line in metrics.splitlines() if "iiif" in line and "requests_total" in line]
        check("the server counted the IIIF viewer's requests", iiif_lines, metrics[:400])

        # The same picture as WebP tiles: both viewers draw it from image/webp tiles, as the JPEG pyramid looks.
        driver.get(url + "?image=picwebp")
        done = wait_fully_loaded(driver)
        results = driver.execute_script("return window.results")
        for viewer in ["dzi", "iiif"]:
            record = results[viewer]
            check(f"webp {viewer}: tiles loaded with no failures", record["loaded"] > 0 and not record["failed"], record)
        check("webp: both viewers fully loaded within 60 s", done)
        tiles = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('picwebp'))"
            ".filter(n => !n.endsWith('.dzi') && !n.endsWith('info.json'))")
        types = {urllib.request.urlopen(name, timeout=10).headers.get("Content-Type") for name in tiles}
        check("webp: every tile both viewers asked for is image/webp", tiles and types == {"image/webp"}, types)
        driver.save_screenshot(shot)
        image = Image.open(shot).convert("RGB")
        for side, box in [("dzi", (0, 0, 600, 400)), ("iiif", (600, 0, 1200, 400))]:
            difference = sum(ImageStat.Stat(ImageChops.difference(image.crop(box), left)).mean) / 3
            check(f"webp {side}: draws what the JPEG pyramid's DZI viewer drew", difference < 6, f"mean difference {difference:.2f}")

        # The pyramidal TIFF, served in place: both viewers draw it from its passed-through and made tiles.
        driver.get(url + "?image=pictif")
        done = wait_fully_loaded(driver)
        results = driver.execute_script("return window.results")
        for viewer in ["dzi", "iiif"]:
            record = results[viewer]
            check(f"tiff {viewer}: OpenSeadragon opened the TIFF served in place, tiles loaded with no failures",
                  record["opened"] and record["loaded"] > 0 and not record["failed"], record)
        check("tiff: both viewers fully loaded within 60 s", done)
        driver.save_screenshot(shot)
        image = Image.open(shot).convert("RGB")
        for side, box in [("dzi", (0, 0, 600, 400)), ("iiif", (600, 0, 1200, 400))]:
            difference = sum(ImageStat.Stat(ImageChops.difference(image.crop(box), left)).mean) / 3
            check(f"tiff {side}: draws what the sliced pyramid's DZI viewer drew", difference < 6, f"mean difference {difference:.2f}")
    finally:
        if driver:
            driver.quit()
        if server:
            server.terminate()
            server.wait(timeout=15)
        shutil.rmtree(folder, ignore_errors=True)
    passed = sum(1 for _, ok in checks if ok)
    print(f"{passed} passed, {len(checks) - passed} failed")
    return 0 if checks and passed == len(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
