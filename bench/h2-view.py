#!/usr/bin/env python3
"""Time to a sharp view in headless Chromium, HTTP/2 against HTTP/1.1 (both over TLS): run by bench/h2-view.sh
inside the client's network namespace, with Debian's /usr/bin/python3 (selenium and chromium-driver from apt).

Usage: h2-view.py URL SPKI ROUNDS    (URL: the viewer's deep link; SPKI: base64 SHA-256 of the certificate's key)

Each run is a new Chromium (Selenium's fresh temporary profile: no HTTP cache, no TLS session, no connection to
reuse) with a 1920×1080 window, HTTP/2 by default or HTTP/1.1 with --disable-http2. It opens URL and times, in the
page, from navigation start (performance.timeOrigin: performance.now() is measured from it) to the frame that drew
the last visible tile: the <tiler-viewer> fires `tilestatus` with `loading: false` from the frame in which no tile of
the view is missing any more (tiler-viewer.js, updateStatus after the layer's draw) — a listener installed before the
page's own scripts records performance.now() there. The 250 ms fade-in that follows (FADE_MS) is the same for both
and not counted. A run is kept only if that view is the one asked for (the finest level, every tile shown) and every
request of the page — document, scripts, API, tiles — went over the protocol meant (Resource Timing's
nextHopProtocol, 'h2' or 'http/1.1'). One run of each first warms the server's tile cache and the page cache (not
counted); then ROUNDS rounds, the order of the two alternating. Prints each run on stderr, and on stdout one row of
bench/h2.sh's table: medians of each protocol and the median of the rounds' HTTP/2 ÷ HTTP/1.1 ratios (range).
"""
import re
import shutil
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# Installed before the page's scripts run: every `tilestatus` with the time and what the viewer shows then.
# (The event does not bubble; a capturing listener on window sees it on its way to the element.)
PROBE = """
performance.setResourceTimingBufferSize(5000);
window.__h2view = [];
addEventListener('tilestatus', (e) => {
  const d = e.target.debug;
  window.__h2view.push({ t: performance.now(), loading: e.detail.loading, error: e.detail.error,
    level: d && d.level, shown: d ? d.shown : [], zoom: d && d.view.zoomScale, width: d && d.view.width, height: d && d.view.height });
}, true);
"""

COLLECT = """
const resources = performance.getEntriesByType('resource').map((e) => ({ name: e.name, protocol: e.nextHopProtocol,
  start: e.startTime, end: e.responseEnd }));
const nav = performance.getEntriesByType('navigation')[0];
return { events: window.__h2view, resources, navigation: nav && nav.nextHopProtocol, state: window.tiler.state,
  maxLevel: window.tiler.viewer.source.pyramid.maxLevel };
"""
TILE = re.compile(r"_files/(\d+)/(\d+_\d+)\.\w+")


def browser(http2, spki):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1920,1080",
                     "--force-device-scale-factor=1", "--disable-gpu", "--disable-extensions", "--no-first-run",
                     "--mute-audio", "--disable-background-networking", "--disable-component-update",
                     # Trust the bench's own certificate by its key, and only it (honoured with chromedriver's
                     # --user-data-dir).
                     f"--ignore-certificate-errors-spki-list={spki}"]:
        options.add_argument(argument)
    if not http2:
        options.add_argument("--disable-http2")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    # Headless Chromium's --window-size is the outer window (the page got 1920×937): grow it by the difference.
    dx, dy = driver.execute_script("return [outerWidth - innerWidth, outerHeight - innerHeight]")
    if dx or dy:
        driver.set_window_size(1920 + dx, 1080 + dy)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    return driver


def run(url, spki, http2):
    """One page load in a new browser → (ms to the last tile drawn, a line about the run)."""
    want = "h2" if http2 else "http/1.1"
    driver = browser(http2, spki)
    try:
        driver.get(url)
        deadline = time.monotonic() + 60
        while True:
            s = driver.execute_script("return window.tiler && window.tiler.state")
            if s and s["complete"] and s["loaded"] and s["gestureIdle"]:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the view was not complete within 60 s: {str(s)[:400]}")
            time.sleep(0.1)
        found = driver.execute_script(COLLECT)
    finally:
        driver.quit()
    state = found["state"]
    done = [e for e in found["events"] if not e["loading"]]
    if not done or done[-1]["error"]:
        raise RuntimeError(f"no tilestatus without loading (or an error): {found['events'][-3:]}")
    sharp = done[-1]
    if sharp["level"] != state["level"] or sharp["shown"] != state["shown"] or sharp["zoom"] != state["view"]["zoomScale"]:
        raise RuntimeError(f"the view changed after its last tile was drawn: level {sharp['level']} at zoom {sharp['zoom']}, "
                           f"then {state['level']} at {state['view']['zoomScale']}")
    if sharp["level"] != found["maxLevel"]:
        raise RuntimeError(f"the view is of level {sharp['level']}, not the finest ({found['maxLevel']})")
    if (sharp["width"], sharp["height"]) != (1920, 1080):
        raise RuntimeError(f"the view is {sharp['width']}×{sharp['height']}, not 1920×1080")
    # Every request over the protocol meant, the document's too.
    protocols = {r["protocol"] for r in found["resources"]} | {found["navigation"]}
    if protocols != {want}:
        raise RuntimeError(f"asked for {want}, the page's requests went over {sorted(protocols)}")
    # Every tile shown was requested, and the count of tiles fetched by then (prefetch ring and overview included).
    requested = {f"{m.group(1)}/{m.group(2)}": r for r in found["resources"] if (m := TILE.search(r["name"]))}
    missing = [key for key in sharp["shown"] if key not in requested or requested[key]["end"] > sharp["t"]]
    if missing:
        raise RuntimeError(f"tiles shown but not fetched before the view was drawn: {missing[:5]}")
    fetched = sum(1 for r in requested.values() if r["end"] <= sharp["t"])
    # Where the time went: the first tile asked for (after the page, its modules, the list, the descriptor), and the
    # last tile shown fully received (the rest is decoding and drawing it).
    first = min(r["start"] for r in requested.values())
    last = max(requested[key]["end"] for key in sharp["shown"])
    line = (f"{want:8s} {sharp['t']:5.0f} ms: level {sharp['level']}, {len(sharp['shown'])} tiles shown, {fetched} tile "
            f"requests answered by then ({len(found['resources'])} requests in all); first tile asked at {first:.0f} ms, "
            f"the last shown received at {last:.0f} ms; view {sharp['width']}×{sharp['height']}")
    return sharp["t"], len(sharp["shown"]), line


def main():
    url, spki, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for http2 in (True, False):
        _, _, line = run(url, spki, http2)
        print(f"  warm-up  {line}", file=sys.stderr, flush=True)
    times = {True: [], False: []}
    shown = set()
    for number in range(1, rounds + 1):
        for http2 in ((False, True) if number % 2 else (True, False)):
            ms, count, line = run(url, spki, http2)
            times[http2].append(ms)
            shown.add(count)
            print(f"  round {number}  {line}", file=sys.stderr, flush=True)
    ratios = sorted(h2 / h1 for h2, h1 in zip(times[True], times[False]))
    print(f"| view (ms to sharp, 50 ms RTT, {'/'.join(map(str, sorted(shown)))} tiles) | {statistics.median(times[False]):.0f} "
          f"| {statistics.median(times[True]):.0f} | {statistics.median(ratios):.2f}× ({ratios[0]:.2f}–{ratios[-1]:.2f}) |")


if __name__ == "__main__":
    main()
