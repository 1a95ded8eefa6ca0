"""UIScrollView behaviour with real input events in Chromium: drags, flicks, rubber bands, wheel, double-click,
pinch, keys, the navigator and deep links."""

import os
import time
import unittest
import urllib.parse

from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By

from harness import REPO, mean_difference
from viewer_case import ViewerTestCase, close

RATE = 0.998  # UIScrollView.DecelerationRate.normal


class InteractionTests(ViewerTestCase):
    def mouse(self, kind, x, y, **extra):
        """One mouse event through the DevTools protocol, as the input pipeline gets it from the OS."""
        self.browser.cdp("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", **extra})

    def test_drag_moves_the_content_by_exactly_the_drag_distance(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 800, "y": 500})
        before = b.screenshot()
        actions = ActionBuilder(b.driver, duration=20)
        actions.pointer_action.move_to_location(500, 300).pointer_down()
        for step in range(1, 11):
            actions.pointer_action.move_to_location(500 - round(13.7 * step), 300 + round(5.9 * step))
        actions.pointer_action.pause(0.3).pointer_up()  # resting before lifting: no flick
        actions.perform()
        state = b.wait_complete()
        self.assertEqual((state["view"]["x"], state["view"]["y"]), (800 + 137, 500 - 59))
        after = b.screenshot()
        width, height = after.size
        # The content moved with the pointer: what was at (i + 137, j − 59) is now at (i, j), pixel for pixel.
        self.assertLess(mean_difference(before.crop((137, 0, width, height - 59)), after.crop((0, 59, width - 137, height))), 0.5)
        self.assertGreater(mean_difference(before.crop((0, 0, width - 137, height - 59)), after.crop((0, 0, width - 137, height - 59))), 10)

    def test_flick_decelerates_to_the_projected_offset(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 900, "y": 600})
        # The events carry their own timestamps, 10 ms apart: 12 points per 10 ms is 1200 points per second,
        # however slowly this machine delivers them.
        start = time.time()
        self.mouse("mousePressed", 600, 300, buttons=1, clickCount=1, timestamp=start)
        for step in range(1, 13):
            self.mouse("mouseMoved", 600 - 12 * step, 300 - 2 * step, buttons=1, timestamp=start + 0.01 * step)
        self.mouse("mouseReleased", 456, 276, buttons=0, clickCount=1, timestamp=start + 0.125)
        moving = b.state()
        self.assertFalse(moving["gestureIdle"], "still gliding after release")
        state = b.wait_complete()
        flick = state["lastFlick"]
        v = flick["velocity"]
        self.assertTrue(close(v["x"], 1200, 0.03) and close(v["y"], 200, 0.03), v)
        for axis in "xy":
            distance = v[axis] / 1000 * RATE / (1 - RATE)  # ZoomMath.decelerationDistance
            self.assertTrue(close(flick["resting"][axis], flick["from"][axis] + distance, 1e-12))
            self.assertEqual(state["view"][axis], flick["settled"][axis])
        self.assertEqual(flick["settled"], flick["resting"])  # nowhere near an edge: nothing clamped
        self.assertGreater(state["view"]["x"] - flick["from"]["x"], 100, "momentum carried the content on")

    def test_drag_past_the_edge_resists_and_springs_back(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 0, "y": 300})
        self.mouse("mousePressed", 200, 300, buttons=1, clickCount=1)
        self.mouse("mouseMoved", 500, 300, buttons=1)
        held = b.state()["view"]["x"]
        self.assertTrue(-300 < held < -50, f"rubber band at {held}")
        time.sleep(0.2)
        self.mouse("mouseReleased", 500, 300, buttons=0, clickCount=1)
        self.assertEqual(b.wait_complete()["view"]["x"], 0)

    def test_wheel_zoom_keeps_the_point_under_the_pointer(self):
        b = self.browser
        state = self.open_view("pic", {"zoomScale": 0.5, "x": 700, "y": 400})
        point = (300, 200)
        anchor = self.image_point(point)
        self.mouse("mouseWheel", *point, deltaX=0, deltaY=-100)
        state = b.wait_complete()
        self.assertTrue(close(state["view"]["zoomScale"], 0.5 * 2 ** 0.25, 1e-12))
        after = self.image_point(point)
        self.assertTrue(close(after["x"], anchor["x"]) and close(after["y"], anchor["y"]), (anchor, after))
        self.assert_matches_source("pic", state)

    def test_double_click_zooms_in_twice_around_the_point_and_shift_zooms_out(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 0.4, "x": 300, "y": 200})
        point = (610, 250)
        anchor = self.image_point(point)
        actions = ActionBuilder(b.driver)
        actions.pointer_action.move_to_location(*point).double_click()
        actions.perform()
        state = b.wait_complete()
        self.assertTrue(close(state["view"]["zoomScale"], 0.8, 1e-12))
        after = self.image_point(point)
        self.assertTrue(close(after["x"], anchor["x"]) and close(after["y"], anchor["y"]), (anchor, after))
        for count in (1, 2):  # shift-double-click
            self.mouse("mousePressed", *point, buttons=1, clickCount=count, modifiers=8)
            self.mouse("mouseReleased", *point, buttons=0, clickCount=count, modifiers=8)
        state = b.wait_complete()
        self.assertTrue(close(state["view"]["zoomScale"], 0.4, 1e-12))

    def test_pinch_zooms_around_the_midpoint_and_two_finger_tap_zooms_out(self):
        self.use_new_tab()
        b = self.browser
        self.open_view("pic", {"zoomScale": 0.4, "x": 300, "y": 200})
        mid = (500, 260)
        anchor = self.image_point(mid)

        # Gestures are judged by the events' own times: given explicitly, WebDriver round trips on a loaded machine
        # cannot stretch a tap past its limit (300 ms) or turn a pinch into something else.
        start = time.time()

        def touch(kind, spread, at):
            points = [] if kind == "touchEnd" else [{"x": mid[0] - spread, "y": mid[1], "id": 0}, {"x": mid[0] + spread, "y": mid[1], "id": 1}]
            b.cdp("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points, "timestamp": start + at})

        touch("touchStart", 50, 0)
        for step, spread in enumerate(range(55, 101, 5)):
            touch("touchMove", spread, 0.016 * (step + 1))
        touch("touchEnd", 0, 0.3)
        state = b.wait_complete()
        self.assertTrue(close(state["view"]["zoomScale"], 0.8, 1e-9), state["view"])
        after = self.image_point(mid)
        self.assertTrue(close(after["x"], anchor["x"], 1e-9) and close(after["y"], anchor["y"], 1e-9), (anchor, after))
        start = time.time()
        touch("touchStart", 40, 0)
        touch("touchEnd", 0, 0.05)
        self.assertTrue(close(b.wait_complete()["view"]["zoomScale"], 0.4, 1e-9))

    def test_keys_zoom_pan_and_fit(self):
        b = self.browser
        state = self.open_view("pic", {"zoomScale": 0.5, "x": 500, "y": 300})
        stage = b.driver.find_element(By.CSS_SELECTOR, "tiler-viewer")
        stage.send_keys("+")
        self.assertTrue(close(b.wait_complete()["view"]["zoomScale"], 1, 1e-12))
        before = b.state()["view"]["x"]
        stage.send_keys("\ue014")  # ArrowRight
        self.assertEqual(b.wait_complete()["view"]["x"], before + round(state["view"]["width"] * 0.15))
        stage.send_keys("0")
        state = b.wait_complete()
        self.assertEqual(state["view"]["zoomScale"], state["view"]["minimumZoomScale"])

    def test_navigator_click_centres_the_view_there(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 0, "y": 0}, hide_chrome=False)
        box = b.js("const r = document.querySelector('tiler-viewer').shadowRoot.querySelector('.navigator').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]")
        actions = ActionBuilder(b.driver)
        actions.pointer_action.move_to_location(round(box[0] + box[2] * 0.5), round(box[1] + box[3] * 0.5)).click()
        actions.perform()
        state = b.wait_complete()
        inner = b.js("const c = window.tiler.viewer.scrollView.centre; return [c.x, c.y]")  # the centre inside the insets
        centre = self.image_point(inner)
        self.assertLess(abs(centre["x"] - 1500), 2 * 3000 / box[2])  # within two navigator pixels
        self.assertLess(abs(centre["y"] - 1000), 2 * 2000 / box[3])

    def test_deep_link_reopens_the_same_view(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 0.4, "x": 300, "y": 200})
        actions = ActionBuilder(b.driver)
        actions.pointer_action.move_to_location(420, 230).double_click()
        actions.perform()
        b.wait_complete()
        b.wait(lambda: b.state()["settled"] and "zoom=0.8" in b.driver.current_url, "the URL to follow the view")
        url = b.driver.current_url
        before = b.screenshot()
        params = urllib.parse.parse_qs(urllib.parse.urlparse(url).fragment)
        b.open(url[len(b.base_url):])
        state = b.wait_complete()
        b.hide_chrome()
        self.assertEqual(state["view"]["zoomScale"], float(params["zoom"][0]))
        self.assertEqual((state["view"]["x"], state["view"]["y"]), (float(params["x"][0]), float(params["y"][0])))
        self.assertLess(mean_difference(before, b.screenshot()), 1.0)

    def test_zz_screenshot_for_the_readme(self):
        """Writes docs/viewer.png: a 1280×800 view with its chrome, once every tile is in."""
        b = self.browser
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        try:
            state = self.open_view("pic", {"zoomScale": 0.55, "x": 180, "y": 20}, hide_chrome=False)
            self.assertEqual((state["view"]["width"], state["view"]["height"]), (1280, 800))
            b.wait(lambda: b.js("return document.querySelector('tiler-viewer').shadowRoot.querySelector('.navigator canvas').width > 0"), "the navigator")
            self.assert_matches_source("pic", state, limit=12)  # the chrome covers a little of the canvas
            path = os.path.join(REPO, "docs", "viewer.png")
            b.screenshot().save(path, optimize=True)
            self.assertGreater(os.path.getsize(path), 100_000)
        finally:
            b.cdp("Emulation.clearDeviceMetricsOverride", {})

if __name__ == "__main__":
    unittest.main()
