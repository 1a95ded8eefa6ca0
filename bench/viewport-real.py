#!/usr/bin/env python3
"""One scripted session of the real <tiler-viewer> in headless Chromium against a running `tiler serve`, for
bench/viewport-real.sh (issue 33).

Usage: viewport-real.py URL MODE OUT.json      MODE: on (reports reach the server) | blocked (CDP blocks every
                                               /visible request, so the element runs as if the server had no query)
                                               | nohold (reports on, but tiles never wait for a report to name them:
                                               the server's join alone keeps a request from reading twice)

The session is the same every time, about 65 s: wheel zooms around fixed points, slow drags, flicks in four
directions, clicks on the navigator (jumps), an animated zoom to 200 % and back to fit, wheel zooms out — twice
over, from two starting points. Input goes through CDP (Input.dispatchMouseEvent) with real time between events,
so the element's own gesture handling, physics and tile loading run as for a user. OUT.json receives the session's
length, the element's counters (reports sent, predicted ones, tiles started/loaded) and the browser's view of the
tile requests."""

import json
import shutil
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WIDTH, HEIGHT = 1280, 800


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                     f"--window-size={WIDTH},{HEIGHT}", "--force-device-scale-factor=1", "--disable-gpu",
                     "--disable-extensions", "--no-first-run", "--mute-audio"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


class Session:
    def __init__(self, driver):
        self.driver = driver

    def cdp(self, command, arguments):
        return self.driver.execute_cdp_cmd(command, arguments)

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def mouse(self, kind, x, y, buttons=0, **extra):
        event = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseWheel" else "none", "buttons": buttons}
        event.update(extra)
        self.cdp("Input.dispatchMouseEvent", event)

    def wheel(self, x, y, notches, pause=0.12):
        """`notches` wheel notches (negative: zoom in) at (x, y), one every `pause` s."""
        for _ in range(abs(notches)):
            self.mouse("mouseWheel", x, y, deltaX=0, deltaY=-100 if notches < 0 else 100)
            time.sleep(pause)

    def drag(self, start, delta, seconds, rest_before_release=0.0, steps=None):
        """Presses at `start`, moves by `delta` over `seconds` in even steps, optionally rests, releases."""
        steps = steps or max(2, int(seconds / 0.016))
        x, y = start
        self.mouse("mousePressed", x, y, buttons=1, clickCount=1)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x + delta[0] * i / steps, y + delta[1] * i / steps, buttons=1)
            time.sleep(seconds / steps)
        if rest_before_release:
            time.sleep(rest_before_release)
        self.mouse("mouseReleased", x + delta[0], y + delta[1], clickCount=1)

    def navigator_point(self, fx, fy):
        rect = self.js("const r = document.querySelector('tiler-viewer').shadowRoot.querySelector('.navigator')"
                       ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]")
        return rect[0] + rect[2] * fx, rect[1] + rect[3] * fy

    def click(self, x, y):
        self.mouse("mousePressed", x, y, buttons=1, clickCount=1)
        self.mouse("mouseReleased", x, y, clickCount=1)

    def state(self):
        return self.js("return window.tiler && window.tiler.viewer ? window.tiler.viewer.debug : null")


def cycle(s, anchor):
    """One round of the moves: about 32 s."""
    cx, cy = anchor
    s.wheel(cx, cy, -10)                                   # wheel zoom in, 1.2 s
    time.sleep(1.5)
    for delta in [(-240, 0), (0, -180), (200, 160)]:       # slow drags, 2 s each, resting before release
        s.drag((640, 420), delta, 2.0, rest_before_release=0.15)
        time.sleep(0.8)
    for delta in [(-300, 0), (0, -260), (300, 0), (0, 260)]:  # flicks, then let them decelerate
        s.drag((640, 420), delta, 0.12)
        time.sleep(2.6)
    for f in [(0.25, 0.3), (0.75, 0.7), (0.5, 0.5)]:        # navigator jumps
        s.click(*s.navigator_point(*f))
        time.sleep(1.4)
    s.js("const v = window.tiler.viewer; v.setZoomScale(2, true)")  # 200 %, animated
    time.sleep(2.0)
    s.drag((640, 420), (-200, -120), 1.0, rest_before_release=0.15)
    time.sleep(0.8)
    s.js("const v = window.tiler.viewer; v.setZoomScale(v.minimumZoomScale, true)")  # back to fit
    time.sleep(2.0)
    s.wheel(cx, cy, -8)
    time.sleep(1.0)
    s.wheel(cx, cy, 8)                                     # and out again
    time.sleep(1.5)


def main():
    url, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
    driver = browser()
    try:
        s = Session(driver)
        s.cdp("Network.enable", {})
        if mode == "blocked":
            s.cdp("Network.setBlockedURLs", {"urls": ["*/visible?*"]})
        driver.get(url + "/#image=img")
        deadline = time.monotonic() + 60
        while not (s.state() or {}).get("complete"):
            if time.monotonic() > deadline:
                raise SystemExit(f"viewport-real: the viewer did not load {url}/#image=img")
            time.sleep(0.1)
        if mode == "nohold":
            s.js("window.tiler.viewer.reporter.holdMs = 0")
        started = time.monotonic()
        for anchor in [(500, 380), (820, 460)]:
            cycle(s, anchor)
        seconds = time.monotonic() - started
        state = s.state()
        with open(out, "w") as f:
            json.dump({"seconds": seconds, "reports": state["reports"], "predictedReports": state.get("predictedReports", 0),
                       "loader": state["loader"]}, f)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
