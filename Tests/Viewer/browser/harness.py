"""The browser tests' world: pyramids sliced by the real `tiler`, a live `tiler serve` on 127.0.0.1, headless
Chromium driven by Selenium, and reference renderings of the source images computed with PIL."""

import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from io import BytesIO

from PIL import Image, ImageChops, ImageStat
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
PUBLIC = os.path.join(REPO, "Public")
STAGE_BACKGROUND = (0x17, 0x18, 0x1B)

# The test images: name → (size, seed, extra `tiler slice` options).
IMAGES = {
    "pic": ("3000x2000", 1, []),
    "edges": ("1600x1000", 3, ["--tile-size", "254", "--overlap", "1"]),
}


class Pyramids:
    """Source pictures made by `tiler sample` and sliced by `tiler slice` into a fresh folder."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="tiler-viewer-test-")
        self.root = os.path.join(self.folder, "root")
        self.sources = {}
        for name, (size, seed, options) in IMAGES.items():
            source = os.path.join(self.folder, f"{name}.jpg")
            run([TILER, "sample", source, "--size", size, "--seed", str(seed), "--quality", "95", "--quiet"])
            run([TILER, "slice", source, "-o", self.root, "--quiet", *options])
            self.sources[name] = Image.open(source).convert("RGB")

    def tile_path(self, name, level, col, row):
        return os.path.join(self.root, f"{name}_files", str(level), f"{col}_{row}.jpg")

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


def run(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")


class Server:
    """`tiler serve ROOT --port 0` with the viewer from Public/ (and `extra` options); learns its URL from the first line it
    prints."""

    def __init__(self, root, log_path, extra=()):
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            [TILER, "serve", root, "--host", "127.0.0.1", "--port", "0", "--public", PUBLIC, *extra],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline() if ready else ""
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"tiler serve did not say where it listens (said {line!r}); log: {log_path}")
        self.url = match.group(1)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


class StaticServer:
    """A plain static file server (`python3 -m http.server`, no Tiler) over a copy of Public/ whose
    examples/pyramids/ holds the test pyramids as `left` and `right`: what embed.html needs."""

    def __init__(self, pyramids):
        self.root = os.path.join(pyramids.folder, "static")
        shutil.copytree(PUBLIC, self.root, ignore=shutil.ignore_patterns("pyramids"))
        target = os.path.join(self.root, "examples", "pyramids")
        os.makedirs(target, exist_ok=True)
        for source, name in (("pic", "left"), ("edges", "right")):
            shutil.copy(os.path.join(pyramids.root, f"{source}.dzi"), os.path.join(target, f"{name}.dzi"))
            shutil.copytree(os.path.join(pyramids.root, f"{source}_files"), os.path.join(target, f"{name}_files"))
        self.process = subprocess.Popen(["/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", self.root],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline() if ready else ""
        match = re.search(r"port (\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"python3 -m http.server did not say where it listens (said {line!r})")
        self.url = f"http://127.0.0.1:{match.group(1)}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class Browser:
    """Headless Chromium at a fixed window size and device scale factor 1, logging console and network."""

    def __init__(self, base_url, width=1000, height=740):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                         f"--window-size={width},{height}", "--force-device-scale-factor=1", "--disable-gpu",
                         "--disable-extensions", "--no-first-run", "--mute-audio"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver_path), options=options)
        self.base_url = base_url
        # Every tile request reaches the server, so the network log tells what the viewer asked for.
        self.cdp("Network.enable", {})
        self.cdp("Network.setCacheDisabled", {"cacheDisabled": True})

    def cdp(self, command, arguments):
        return self.driver.execute_cdp_cmd(command, arguments)

    def open(self, path):
        """Loads `path` as a new document (through about:blank, so a changed hash alone still reloads)."""
        self.open_url(self.base_url + path)

    def open_url(self, url):
        """Loads `url` (of any server) as a new document, through about:blank, its console and network logs drained."""
        self.driver.get("about:blank")
        self.drain()
        self.driver.get(url)

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def state(self):
        return self.js("return window.tiler ? window.tiler.state : null")

    def wait(self, predicate, what, timeout=45):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; state: {json.dumps(self.state())[:600]}")
            time.sleep(0.05)

    def wait_complete(self, timeout=45):
        """Waits until no gesture or animation runs, every visible tile is drawn opaque and nothing is loading."""
        def done():
            s = self.state()
            return s if s and s["complete"] and s["loaded"] and s["gestureIdle"] else None
        return self.wait(done, "the view to be complete", timeout)

    def screenshot(self):
        return Image.open(BytesIO(self.driver.get_screenshot_as_png())).convert("RGB")

    def hide_chrome(self, hidden=True):
        """Hides the floating bar, navigator and banner so that screenshots show the canvas alone."""
        self.js("""
            let style = document.getElementById('test-hide');
            if (!style) { style = document.createElement('style'); style.id = 'test-hide'; document.head.append(style); }
            style.textContent = arguments[0] ? '.bar, .banner, tiler-viewer::part(navigator), tiler-viewer::part(indicator) { visibility: hidden !important; }' : '';
        """, hidden)

    def console_errors(self):
        return [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def network(self):
        """The requests since the last call, in the order they were sent: url, status (or None), mimeType, failed,
        canceled."""
        requests = {}
        order = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method = message.get("method")
            params = message.get("params", {})
            if method == "Network.requestWillBeSent":
                requests[params["requestId"]] = {"url": params["request"]["url"], "status": None, "failed": False, "canceled": False}
                order.append(params["requestId"])
            elif method == "Network.responseReceived" and params["requestId"] in requests:
                requests[params["requestId"]]["status"] = params["response"]["status"]
                requests[params["requestId"]]["mimeType"] = params["response"].get("mimeType")
            elif method == "Network.loadingFailed" and params["requestId"] in requests:
                requests[params["requestId"]]["failed"] = True
                requests[params["requestId"]]["canceled"] = params.get("canceled", False)
        return [requests[key] for key in order]

    def drain(self):
        self.driver.get_log("browser")
        self.driver.get_log("performance")

    def quit(self):
        self.driver.quit()


class World:
    """The pyramids, server and browser all browser tests share, made on first use and closed by the runner."""

    _shared = None

    def __init__(self):
        self.pyramids = Pyramids()
        self.server = None
        self.static = None
        self.browser = None
        try:
            self.server = Server(self.pyramids.root, os.path.join(self.pyramids.folder, "serve.log"))
            self.static = StaticServer(self.pyramids)
            self.browser = Browser(self.server.url)
        except BaseException:
            self.close()
            raise

    @classmethod
    def shared(cls):
        if cls._shared is None:
            cls._shared = World()
        return cls._shared

    @classmethod
    def close_shared(cls):
        if cls._shared is not None:
            cls._shared.close()
            cls._shared = None

    def close(self):
        if self.browser:
            self.browser.quit()
        if self.server:
            self.server.stop()
        if self.static:
            self.static.stop()
        self.pyramids.remove()


def api(server, path):
    """GETs `path` from the server and parses its JSON."""
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        return json.load(response)


def reference(source, view, size, scale=1):
    """What the viewer should show: `source` at `view` (zoomScale, x, y in points) in a viewport of `size` points
    on a screen of `scale` device pixels per point, resampled with Lanczos, on the stage's background."""
    z = view["zoomScale"] * scale
    x = view["x"] * scale
    y = view["y"] * scale
    width, height = round(size[0] * scale), round(size[1] * scale)
    out = Image.new("RGB", (width, height), STAGE_BACKGROUND)
    left, top = max(0, round(-x)), max(0, round(-y))
    right, bottom = min(width, round(source.width * z - x)), min(height, round(source.height * z - y))
    if right > left and bottom > top:
        box = (max(0.0, (left + x) / z), max(0.0, (top + y) / z), min(source.width, (right + x) / z), min(source.height, (bottom + y) / z))
        out.paste(source.resize((right - left, bottom - top), Image.LANCZOS, box=box), (left, top))
    return out


def mean_difference(a, b, box=None):
    """The mean absolute difference of two RGB images (or their `box`), averaged over channels, 0–255."""
    if box:
        a, b = a.crop(box), b.crop(box)
    assert a.size == b.size, f"sizes differ: {a.size} vs {b.size}"
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3
