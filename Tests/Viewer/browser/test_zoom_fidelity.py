"""`<tiler-viewer>` zooms as UIScrollView does (issue 29, items 1–4): `setZoomScale` about the centre, animated zooms
from code, double-tap and keys reported as zooms, equal zoom limits locking the zoom, and `isScrollEnabled = false`
stopping the keys that scroll. Input is real (CDP mouse and wheel, WebDriver keys)."""

import time

from embed_case import ZOOM, EmbedTestCase
from viewer_case import close


class ZoomFidelityTests(EmbedTestCase):
    def set_view(self, viewer, zoom, x, y):
        self.browser.js(f"document.getElementById('{viewer}').setView({{zoomScale: {zoom}, x: {x}, y: {y}}})")
        self.events(viewer)

    def assert_same_point(self, a, b, what):
        self.assertTrue(close(a["x"], b["x"], 1e-9) and close(a["y"], b["y"], 1e-9), (what, a, b))

    def test_set_zoom_scale_zooms_about_the_centre_and_clamps(self):
        self.open_embed()
        b = self.browser
        self.set_view("left", 0.5, 1200, 800)
        centre = self.centre_point("left")
        b.js("document.getElementById('left').setZoomScale(1, false)")
        self.assertEqual(self.get("left", "v.zoomScale"), 1)
        self.assert_same_point(self.centre_point("left"), centre, "setZoomScale keeps the image point at the centre")
        self.assertEqual(self.events("left", collapse=False), ["didscroll", "didzoom"], "not animated: one didScroll, one didZoom")
        b.js("document.getElementById('left').zoomScale = 50")
        self.assertEqual(self.get("left", "v.zoomScale"), 2, "clamped to maximumZoomScale")
        self.assert_same_point(self.centre_point("left"), centre, "the zoomScale setter too")
        # Near the top-left corner, zooming out would show past the edge: the offset is clamped to its bounds.
        self.set_view("left", 1, 0, 0)
        b.js("document.getElementById('left').zoomScale = 0.25")
        self.assertEqual(self.get("left", "v.zoomScale"), 0.25)
        self.assertEqual(self.get("left", "v.contentOffset"), self.get("left", "v.scrollView.restingOffset({x: -1e9, y: -1e9})"))
        b.js("document.getElementById('left').zoomScale = 0.001")
        view, fit = self.get("left", "[{zoomScale: v.zoomScale, ...v.contentOffset}, v.scrollView.fitView]")
        self.assertEqual(view["zoomScale"], fit["zoomScale"], "clamped to minimumZoomScale")
        self.assert_same_point(view, fit, "the fitted, centred view (up to the last bit of a fitted axis's bounds)")

    def test_animated_zooms_from_code_keys_and_double_tap_are_zooms_to_the_delegate(self):
        self.open_embed()
        b = self.browser
        b.js("""const v = document.getElementById('left'); window.zoomingSeen = [];
                v.addEventListener('didzoom', () => window.zoomingSeen.push(v.isZooming));""")
        left, top, width, height = self.box("left")
        element = b.driver.find_element("id", "left")
        scenarios = [
            ("setZoomScale animated", lambda: b.js("document.getElementById('left').setZoomScale(1, true)"), 1),
            ("zoomToRect animated", lambda: b.js("document.getElementById('left').zoomToRect({x: 1000, y: 600, width: 800, height: 600}, true)"),
             min(width / 800, height / 600)),
            ("the + key", lambda: element.send_keys("+"), 2 * min(width / 800, height / 600)),
            ("the - key", lambda: element.send_keys("-"), min(width / 800, height / 600)),
        ]
        for what, action, scale in scenarios:
            self.events("left")
            b.js("window.scales = []")
            action()
            self.wait_idle("left")
            self.assertEqual(self.events("left"), ZOOM, what)
            self.assertTrue(close(b.js("return window.scales")[0], scale, 1e-12), (what, b.js("return window.scales"), scale))
        # A double-click (real mouse events through CDP) zooms in 2× around the point, as a zoom.
        self.events("left")
        point = (left + width / 3, top + height / 3)
        t = time.time()
        for count in (1, 2):
            self.mouse("mousePressed", *point, t + 0.1 * count, buttons=1, clickCount=count)
            self.mouse("mouseReleased", *point, t + 0.1 * count + 0.02, buttons=0, clickCount=count)
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ZOOM, "double-tap")
        self.assertEqual(b.js("return window.zoomingSeen.filter(z => z)"), [], "isZooming stays false: it is the gestures' flag")
        # Scrolling animations stay scrolling animations.
        b.js("document.getElementById('left').setContentOffset({x: 900, y: 500}, true)")
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["move", "didendscrollinganimation"])
        b.js("document.getElementById('left').scrollRectToVisible({x: 3000, y: 2000, width: 100, height: 100}, true)")
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["move", "didendscrollinganimation"])

    def test_equal_zoom_limits_lock_the_zoom(self):
        self.use_new_tab()
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('right'); v.minimumZoomScale = 0.5; v.maximumZoomScale = 0.5;")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.5)
        left, top, width, height = self.box("right")
        mid = (left + width / 2, top + height / 2)
        self.events("right")
        for _ in range(3):
            self.mouse("mouseWheel", *mid, time.time(), deltaX=0, deltaY=-200)
        self.mouse("mouseWheel", *mid, time.time(), deltaX=0, deltaY=-20, modifiers=2)  # a trackpad pinch: ctrl+wheel
        t = time.time()
        self.touch("touchStart", [(mid[0] - 30, mid[1]), (mid[0] + 30, mid[1])], t)
        for step in range(1, 11):
            self.touch("touchMove", [(mid[0] - 30 - 8 * step, mid[1]), (mid[0] + 30 + 8 * step, mid[1])], t + 0.016 * step)
        b.wait(lambda: self.get("right", "v.isTracking"), "the fingers to be down")
        self.assertFalse(self.get("right", "v.isZooming"))
        self.touch("touchEnd", [], t + 0.3)
        b.driver.find_element("id", "right").send_keys("+")
        time.sleep(0.4)  # longer than a key zoom (320 ms) and the wheel's end (150 ms)
        self.wait_idle("right")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.5)
        zooms = [e for e in self.events("right") if e in ("willbeginzooming", "didendzooming", "didzoom")]
        self.assertEqual(zooms, [], "no zoom delegate calls with equal limits")
        b.js("document.getElementById('right').maximumZoomScale = 1")
        self.mouse("mouseWheel", *mid, time.time(), deltaX=0, deltaY=-200)
        self.wait_idle("right")
        self.assertGreater(self.get("right", "v.zoomScale"), 0.5, "the same wheel zooms once the limits differ")

    def test_scroll_enabled_false_stops_the_keys_that_scroll(self):
        self.open_embed()
        b = self.browser
        self.set_view("left", 1, 1200, 800)
        b.js("document.getElementById('left').isScrollEnabled = false")
        element = b.driver.find_element("id", "left")
        element.send_keys("\ue014\ue015\ue011")  # ArrowRight, ArrowDown, Home
        time.sleep(0.4)  # longer than a key scroll (200 ms) or scroll-to-top (320 ms): nothing may have moved
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 1200, "y": 800})
        self.assertEqual(self.events("left"), [])
        element.send_keys("+")
        self.wait_idle("left")
        self.assertEqual(self.get("left", "v.zoomScale"), 2, "zooming is not scrolling: + still zooms")
        b.js("document.getElementById('left').isScrollEnabled = true")
        before = self.get("left", "v.contentOffset")
        element.send_keys("\ue014")
        self.wait_idle("left")
        self.assertGreater(self.get("left", "v.contentOffset")["x"], before["x"], "and the arrows scroll again once enabled")
