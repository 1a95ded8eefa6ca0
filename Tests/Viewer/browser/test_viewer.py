"""The viewer in headless Chromium against a live `tiler serve`: what it draws, what it asks for, how it moves."""

import os
import unittest
import urllib.parse

from selenium.webdriver.common.by import By

from PIL import Image

from harness import STAGE_BACKGROUND, api, mean_difference, reference
from viewer_case import ViewerTestCase

class PageTests(ViewerTestCase):
    def test_list_shows_images_with_thumbnails_and_back_forward_work(self):
        b = self.browser
        b.open("/")
        cards = b.wait(lambda: b.driver.find_elements(By.CSS_SELECTOR, ".card-link"), "the image cards")
        self.assertEqual([c.find_element(By.CSS_SELECTOR, ".name").text for c in cards], ["edges", "pic"])
        b.wait(lambda: b.js("return [...document.querySelectorAll('.thumb img')].every(i => i.complete && i.naturalWidth > 0)"), "thumbnails")
        sizes = b.js("return [...document.querySelectorAll('.thumb img')].map(i => [i.naturalWidth, i.naturalHeight])")
        self.assertEqual(sizes, [[200, 125], [188, 125]])  # one tile each, at most 256 px
        cards[1].click()
        b.wait_complete()
        self.assertTrue(b.driver.current_url.endswith("#image=pic") or "#image=pic&" in b.driver.current_url)
        b.driver.back()
        b.wait(lambda: b.driver.find_elements(By.CSS_SELECTOR, ".card-link") and b.state() is None, "the list again")
        b.driver.forward()
        self.assertEqual(b.wait_complete()["image"], "pic")

    def test_unknown_image_says_so(self):
        b = self.browser
        b.open("/#image=nothing-here")
        text = b.wait(lambda: b.js("const e = document.querySelector('.error-page'); return e && e.textContent"), "an error")
        self.assertIn("no image named “nothing-here”", text)
        # Not in the list, the app asks for its descriptor to tell "no such image" (404) from "private" (401, 403):
        # Chromium logs that 404 as a failed load. Nothing else may be logged.
        errors = [e["message"] for e in b.console_errors()]
        self.assertEqual([m for m in errors if "/images/nothing-here.dzi" not in m or "404" not in m], [])


class RenderingTests(ViewerTestCase):
    def test_fitted_image_matches_the_source(self):
        state = self.open_view("pic")
        self.assertEqual(state["view"]["zoomScale"], state["view"]["minimumZoomScale"])
        self.assert_matches_source("pic", state)

    def test_zoomed_view_with_overlapping_tiles_has_no_seams(self):
        # An awkward zoom and offset: tile edges fall between device pixels; the overlap must be cropped. (x 140.96:
        # where x 333.3 used to be clamped while the navigator kept a band along the whole bottom; the band is now at
        # the right for this window, and 333.3 would show another, busier part, not another rendering.)
        state = self.open_view("edges", {"zoomScale": 0.7131, "x": 140.96, "y": 111.7})
        shot = self.browser.screenshot()
        expected = reference(self.pyramids.sources["edges"], state["view"], (state["view"]["width"], state["view"]["height"]))
        z, x, y = state["view"]["zoomScale"], state["view"]["x"], state["view"]["y"]
        span = 254 * 2 ** (11 - state["level"])  # full-resolution pixels per tile of the drawn level
        height, width = expected.height, expected.width
        columns = [round(e * z - x) for e in range(span, 1600, span) if 1 <= round(e * z - x) < width - 1]
        rows = [round(e * z - y) for e in range(span, 1000, span) if 1 <= round(e * z - y) < height - 1]
        self.assertTrue(columns and rows)
        for c in columns:  # the pixel columns on either side of each tile edge look like the source there
            for line in (c - 1, c):
                self.assertLess(mean_difference(shot, expected, (line, 0, line + 1, min(height, round(1000 * z - y)))), 14, f"column {line}")
        for r in rows:
            for line in (r - 1, r):
                self.assertLess(mean_difference(shot, expected, (0, line, min(width, round(1600 * z - x)), line + 1)), 14, f"row {line}")
        self.assert_matches_source("edges", state)

    def test_hidpi_screen_uses_finer_tiles_and_stays_sharp(self):
        b = self.browser
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": 0, "height": 0, "deviceScaleFactor": 2, "mobile": False})
        try:
            state = self.open_view("pic", {"zoomScale": 0.3, "x": 100, "y": 50})
            v = state["view"]
            self.assertEqual(v["devicePixelRatio"], 2)
            self.assertEqual(v["maximumZoomScale"], 1)  # 2 device pixels per image pixel
            self.assertEqual(b.js("return document.querySelector('tiler-viewer').shadowRoot.querySelector('canvas').width"), round(v["width"] * 2))
            answer = api(self.server, f"/api/images/pic/visible?x=100&y=50&width={v['width']}&height={v['height']}&zoomScale=0.3&contentScale=2")
            self.assertEqual(state["level"], answer["level"])
            self.assertEqual(answer["level"], 12)  # 0.6 device pixels per image pixel needs the full level
            self.assert_matches_source("pic", state)
        finally:
            b.cdp("Emulation.clearDeviceMetricsOverride", {})


class RequestTests(ViewerTestCase):
    def test_tile_requests_are_the_geometry_answer_and_all_succeed(self):
        state = self.open_view("pic", {"zoomScale": 0.45, "x": 200, "y": 150})
        version = next(i["version"] for i in api(self.server, "/api/images") if i["name"] == "pic")
        # The viewer asks for the versioned URLs the server hands out (immutable under them).
        requests = [r for r in self.browser.network() if f"/images/pic@{version}_files/" in r["url"]]
        v = state["view"]
        self.assertEqual((v["zoomScale"], v["x"], v["y"]), (0.45, 200, 150))
        query = urllib.parse.urlencode({"x": v["x"], "y": v["y"], "width": v["width"], "height": v["height"], "zoomScale": v["zoomScale"],
                                        "contentScale": v["devicePixelRatio"], "prefetch": 1})
        answer = api(self.server, f"/api/images/pic/visible?{query}")
        overview = f"/images/pic@{version}_files/8/0_0.jpg"
        expected = [overview] + [t["url"] for t in answer["tiles"]]
        paths = [urllib.parse.urlparse(r["url"]).path for r in requests]
        self.assertEqual(answer["level"], 11)
        self.assertEqual(state["level"], answer["level"])
        self.assertEqual([urllib.parse.urlparse(u).path for u in state["wanted"]], expected)
        self.assertEqual(paths, expected, "requested in the geometry's order, nearest the centre first")
        self.assertTrue(all(r["status"] == 200 and not r["failed"] for r in requests), requests)
        self.assertEqual(sorted(state["shown"]), sorted(f"11/{t['col']}_{t['row']}" for t in answer["tiles"]
                                                        if self.meets(t, answer["visibleRect"])))

    @staticmethod
    def meets(tile, rect):
        return (tile["x"] < rect["x"] + rect["width"] and tile["x"] + tile["width"] > rect["x"]
                and tile["y"] < rect["y"] + rect["height"] and tile["y"] + tile["height"] > rect["y"])

    def test_panning_across_the_image_keeps_the_cache_under_its_cap(self):
        b = self.browser
        state = self.open_view("pic", {"zoomScale": 1, "x": 0, "y": 0}, query="?cache=40")
        self.assertEqual(state["cache"]["capacity"], 40)
        width, height = state["view"]["width"], state["view"]["height"]
        for y in range(0, 2000 - int(height) + 400, 400):
            for x in range(0, 3000 - int(width) + 500, 500):
                b.js("window.tiler.viewer.setView({zoomScale: 1, x: arguments[0], y: arguments[1]})", x, y)
                state = b.wait_complete()
                self.assertLessEqual(state["cache"]["size"], 40)
                self.assertTrue(b.js("return window.tiler.viewer.cache.has('8/0_0')"), "the overview stays")
        self.assertGreater(state["cache"]["evictions"], 40)
        self.assertLessEqual(state["cache"]["peak"], 40)
        self.assertGreaterEqual(state["loader"]["loaded"], 96)  # every tile of level 12 was shown


class FailureTests(ViewerTestCase):
    expect_console_errors = True  # the 404s are the point

    def test_failed_tile_shows_a_message_keeps_the_coarser_tile_and_retries(self):
        b = self.browser
        path = self.pyramids.tile_path("edges", 11, 2, 1)
        os.rename(path, path + ".away")
        try:
            b.open("/#image=edges&x=100&y=50&zoom=0.7")
            # The failure can arrive before the other tiles: wait for both, then check that nothing else is missing.
            b.wait(lambda: (lambda s: s.get("loaded") and s["stats"].get("failed") == 1 and s["complete"] and s["gestureIdle"])(b.state() or {}),
                   "the failure and every other tile")
            banner = b.driver.find_element(By.CSS_SELECTOR, ".banner")
            self.assertTrue(banner.is_displayed())
            self.assertIn("A tile could not be loaded (tile: HTTP 404 — tile not found).", banner.text, "the server's words")
            state = b.state()
            self.assertEqual(state["stats"]["missing"], 0)
            b.hide_chrome()
            shot = b.screenshot()
            z, x, y = state["view"]["zoomScale"], state["view"]["x"], state["view"]["y"]
            hole = (round(508 * z - x), round(254 * z - y), round(762 * z - x), round(508 * z - y))
            expected = reference(self.pyramids.sources["edges"], state["view"], (state["view"]["width"], state["view"]["height"]))
            # The overview (8× coarser) stands in: blurry, but the image, never the background.
            background = Image.new("RGB", shot.size, STAGE_BACKGROUND)
            self.assertGreater(mean_difference(shot, background, hole), 40, "no hole")
            self.assertLess(mean_difference(shot, expected, hole), 35, "the coarser tile stands in")
            b.hide_chrome(False)
        finally:
            os.rename(path + ".away", path)
        b.driver.find_element(By.CSS_SELECTOR, ".banner .retry").click()
        state = b.wait_complete()
        self.assertEqual(state["stats"]["failed"], 0)
        self.assertFalse(b.driver.find_element(By.CSS_SELECTOR, ".banner").is_displayed())

    def test_a_src_the_server_refuses_fires_error_with_the_servers_message(self):
        b = self.browser
        b.open("/")
        b.wait(lambda: b.js("return document.querySelector('.card-link')"), "the list")
        version = api(self.server, "/api/images")[1]["version"]
        for src, words in (("/images/nothing-here.dzi", "no image named nothing-here"),
                           ("/images/pic@000000000000.dzi", f"its current version is {version}")):
            b.js("""document.body.replaceChildren(); window.failure = null; const v = document.createElement('tiler-viewer');
                    v.addEventListener('error', (e) => (window.failure = e.detail.message)); v.src = arguments[0];
                    document.body.append(v);""", src)
            message = b.wait(lambda: b.js("return window.failure"), f"the error event for {src}")
            self.assertTrue(message.startswith(f"{self.server.url}{src}: HTTP 404 — "), message)
            self.assertIn(words, message, "the server's words")


if __name__ == "__main__":
    unittest.main()
