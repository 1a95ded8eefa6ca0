"""`<tiler-viewer>` as a component: two elements on embed.html from a plain static file server (no Tiler), each
UIScrollView property and method checked numerically, the delegate sequences recorded from CDP input, the insets,
and the viewport reports to `tiler serve`. Tolerances: offsets are compared exactly where the arithmetic is exact,
else to 1e-9 relative; nothing depends on how fast frames come (events carry their own timestamps)."""

import os
import time
import urllib.parse
import urllib.request

from embed_case import FLICK, ZOOM, EmbedTestCase
from harness import REPO, mean_difference, reference
from viewer_case import ViewerTestCase, close


class ElementTests(EmbedTestCase):
    def test_two_static_viewers_load_fit_and_send_no_reports(self):
        self.open_embed()
        for viewer, (w, h) in (("left", (3000, 2000)), ("right", (1600, 1000))):
            _, _, width, height = self.box(viewer)
            z = self.get(viewer, "v.zoomScale")
            self.assertEqual(z, min(width / w, height / h, 1), "minimumZoomScale: aspect fit")
            self.assertEqual(self.get(viewer, "v.minimumZoomScale"), z)
            size = self.get(viewer, "v.contentSize")
            self.assertEqual((size["width"], size["height"]), (w * z, h * z), "contentSize = image × zoomScale")
        self.assertEqual(self.get("left", "v.decelerationRate"), 0.99)  # deceleration-rate="fast"
        self.assertEqual(self.get("right", "v.maximumZoomScale"), 4)  # max-zoom="4"
        self.assertTrue(self.get("right", "v.isDirectionalLockEnabled"))
        self.assertEqual(self.get("left", "v.maximumZoomScale"), 2)  # 2 device pixels per image pixel at ratio 1
        self.flick("left", -10, -6)
        self.wait_idle("left")
        urls = [r["url"] for r in self.browser.network()]
        self.assertTrue(any("/examples/pyramids/left_files/" in u for u in urls))
        self.assertEqual([u for u in urls if "visible" in u or "/api/" in u], [], "a static src makes no viewport reports")

    def test_settable_properties_and_attributes(self):
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('right'); v.setAttribute('min-zoom', '0.5'); v.setAttribute('content-inset', '10 20 30 40');"
             "v.decelerationRate = 0.95; v.bounces = false; v.alwaysBounceVertical = true;")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.5, "a larger minimum pulls the zoom up")
        self.assertEqual(self.get("right", "v.contentInset"), {"top": 10, "left": 40, "bottom": 30, "right": 20})
        self.assertEqual(self.get("right", "[v.decelerationRate, v.bounces, v.alwaysBounceVertical, v.alwaysBounceHorizontal]"), [0.95, False, True, False])
        b.js("document.getElementById('right').zoomScale = 3")
        self.assertEqual(self.get("right", "v.zoomScale"), 3)
        b.js("document.getElementById('right').zoomScale = 30")
        self.assertEqual(self.get("right", "v.zoomScale"), 4, "setZoomScale clamps to maximumZoomScale")
        with self.assertRaises(Exception):
            b.js("document.getElementById('right').decelerationRate = 'slow'")

    def test_set_content_offset_and_the_scrolling_animation_sequence(self):
        self.open_embed()
        b = self.browser
        b.js("document.getElementById('left').zoomScale = 1")
        self.events("left")
        b.js("document.getElementById('left').setContentOffset({x: 700, y: 400}, false)")
        self.assertEqual(self.events("left", collapse=False), ["didscroll"], "non-animated: exactly one didScroll")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 700, "y": 400})
        b.js("document.getElementById('left').setContentOffset({x: 900, y: 500}, true)")
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["move", "didendscrollinganimation"])
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 900, "y": 500})
        b.js("document.getElementById('left').setContentOffset({x: 900, y: 500}, true)")
        self.assertEqual(self.events("left"), [], "an animation to where it is sends nothing, as UIKit")

    def test_scroll_rect_to_visible_scrolls_the_least_and_not_at_all_when_visible(self):
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('left'); v.zoomScale = 1; v.setContentOffset({x: 1000, y: 800});")
        _, _, width, height = self.box("left")
        self.events("left")
        b.js("document.getElementById('left').scrollRectToVisible({x: 1100, y: 900, width: 50, height: 50}, false)")
        self.assertEqual(self.events("left"), [])
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 1000, "y": 800})
        b.js("document.getElementById('left').scrollRectToVisible({x: 1000 + arguments[0], y: 700, width: 100, height: 40}, false)", width)
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 1100, "y": 700}, "right edge and top edge just shown")
        b.js("document.getElementById('left').contentInset = {top: 50, left: 0, bottom: 0, right: 0};"
             "document.getElementById('left').scrollRectToVisible({x: 1200, y: 720, width: 10, height: 10}, false)")
        self.assertEqual(self.get("left", "v.contentOffset")["y"], 720 - 50, "inside the inset")

    def test_zoom_to_rect_centres_the_rect_at_the_fitting_scale(self):
        self.open_embed()
        b = self.browser
        _, _, width, height = self.box("left")
        b.js("document.getElementById('left').zoomToRect({x: 1000, y: 600, width: 400, height: 300}, true)")
        state = self.wait_idle("left")
        z = min(width / 400, height / 300)
        self.assertTrue(close(state["view"]["zoomScale"], z, 1e-12), state["view"])
        centre = b.js("const v = document.getElementById('left').scrollView; return v.imagePointAt({x: arguments[0] / 2, y: arguments[1] / 2});", width, height)
        self.assertTrue(close(centre["x"], 1200) and close(centre["y"], 750), centre)
        self.assertEqual(self.events("left"), ZOOM, "an animated zoom from code is a zoom to the delegate")
        b.js("document.getElementById('left').zoomToRect({x: 1000, y: 600, width: 4, height: 3}, false)")
        self.assertEqual(self.get("left", "v.zoomScale"), 2, "clamped to maximumZoomScale")

    def test_zoom_limits_hold_for_wheel_keys_and_pinch(self):
        self.use_new_tab()
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('right'); v.maximumZoomScale = 0.6; v.minimumZoomScale = 0.2;")
        left, top, width, height = self.box("right")
        mid = (left + width / 2, top + height / 2)
        for _ in range(6):
            self.mouse("mouseWheel", *mid, time.time(), deltaX=0, deltaY=-200)
        stretched = self.get("right", "v.zoomScale")
        self.assertGreater(stretched, 0.6, "bouncesZoom: the wheel stretches past the maximum")
        self.wait_idle("right")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.6, "and settles back")
        self.assertEqual(self.events("right")[0], "willbeginzooming")
        for _ in range(8):
            self.mouse("mouseWheel", *mid, time.time(), deltaX=0, deltaY=300)
        self.wait_idle("right")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.2)
        b.driver.find_element("id", "right").send_keys("+++++")
        self.wait_idle("right")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.6, "keys stop at the maximum")

        def touch(kind, spread):
            points = [] if kind == "touchEnd" else [{"x": mid[0] - spread, "y": mid[1], "id": 0}, {"x": mid[0] + spread, "y": mid[1], "id": 1}]
            b.cdp("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
        self.events("right")
        touch("touchStart", 20)
        for spread in range(30, 121, 10):
            touch("touchMove", spread)
        self.assertTrue(self.get("right", "v.isZooming"))
        touch("touchEnd", 0)
        self.wait_idle("right")
        self.assertEqual(self.get("right", "v.zoomScale"), 0.6, "a pinch settles back to the maximum")
        self.assertEqual(self.events("right"), ZOOM)

    def test_flick_sequence_and_fast_deceleration_distance(self):
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('left'); v.zoomScale = 1; v.setContentOffset({x: 1200, y: 800});")
        self.events("left")
        # isDecelerating is sampled inside the delegate calls, not after the flick: a loaded machine may
        # finish a fast deceleration before the next WebDriver round trip.
        b.js("""
            const v = document.getElementById('left'); window.decelerating = [];
            for (const n of ['willbegindecelerating', 'didscroll', 'didenddecelerating'])
              v.addEventListener(n, () => window.decelerating.push(n + ':' + v.isDecelerating));
        """)
        self.flick("left", -12, -2)
        state = self.wait_idle("left")
        self.assertEqual(self.events("left"), FLICK)
        samples = b.js("return window.decelerating")
        after = samples[samples.index("willbegindecelerating:true"):]
        self.assertIn("didscroll:true", after, samples)
        self.assertEqual(after[-1], "didenddecelerating:false", samples)
        flick = state["lastFlick"]
        rate = 0.99  # deceleration-rate="fast"
        self.assertTrue(close(flick["velocity"]["x"], 1200, 0.03), flick)
        for axis in "xy":
            distance = flick["velocity"][axis] / 1000 * rate / (1 - rate)
            self.assertTrue(close(state["view"][axis], flick["from"][axis] + distance, 1e-9), (axis, state["view"], flick))

    def test_drag_rested_before_lifting_has_no_deceleration(self):
        self.open_embed()
        self.browser.js("const v = document.getElementById('left'); v.zoomScale = 1; v.setContentOffset({x: 1200, y: 800});")
        self.events("left")
        self.flick("left", -5, 0, rest=True)
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["willbegindragging", "move", "willenddragging", "didenddragging(false)"])
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 1260, "y": 800})

    def test_pull_past_the_edge_bounces_back_as_deceleration_and_bounces_false_holds_the_edge(self):
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('left'); v.zoomScale = 1; v.setContentOffset({x: 0, y: 800});")
        self.events("left")
        self.flick("left", 20, 0, rest=True)
        self.wait_idle("left")
        self.assertEqual(self.events("left"), FLICK)
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 0, "y": 800})
        b.js("document.getElementById('left').bounces = false")
        left, top, width, height = self.box("left")
        t = time.time()
        self.mouse("mousePressed", left + 100, top + 100, t, buttons=1, clickCount=1)
        self.mouse("mouseMoved", left + 300, top + 100, t + 0.05, buttons=1)
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 0, "y": 800}, "no rubber band without bounces")
        self.mouse("mouseReleased", left + 300, top + 100, t + 0.3, buttons=0, clickCount=1)

    def test_always_bounce_decides_whether_a_fitted_image_moves(self):
        self.open_embed()
        b = self.browser
        before = self.get("right", "v.contentOffset")
        self.flick("right", 0, 15, rest=True)
        self.wait_idle("right")
        self.assertEqual(self.events("right"), [], "no room, no alwaysBounce: no drag at all (UIKit's default)")
        self.assertEqual(self.get("right", "v.contentOffset"), before)
        b.js("document.getElementById('right').alwaysBounceVertical = true")
        self.flick("right", 0, 15, rest=True)
        self.wait_idle("right")
        self.assertEqual(self.events("right"), FLICK, "rubber-banded, then back")
        self.assertEqual(self.get("right", "v.contentOffset"), before)

    def test_delegate_changing_target_content_offset_moves_the_rest_point(self):
        self.open_embed()
        b = self.browser
        b.js("""const v = document.getElementById('left'); v.zoomScale = 1; v.setContentOffset({x: 1000, y: 800});
                window.seen = null;
                v.delegate = { scrollViewWillEndDragging(viewer, velocity, target) {
                  window.seen = {velocity, target: {...target}}; target.x = 1500; target.y = 700; } };""")
        self.flick("left", -12, -2)
        state = self.wait_idle("left")
        seen = b.js("return window.seen")
        self.assertTrue(close(seen["velocity"]["x"], 1.2, 0.03), seen)  # points per millisecond, as UIKit
        self.assertNotEqual(seen["target"]["x"], 1500)
        self.assertTrue(close(state["view"]["x"], 1500, 1e-9) and close(state["view"]["y"], 700, 1e-9), state["view"])

    def test_scroll_indicators_flash_inside_their_insets_and_fade(self):
        self.open_embed()
        b = self.browser
        b.js("const v = document.getElementById('left'); v.zoomScale = 1; v.scrollIndicatorInsets = {top: 0, left: 0, bottom: 20, right: 30};")
        b.wait(lambda: self.indicator("vertical")["opacity"] == "0", "the bars to fade after the zoom")
        b.js("document.getElementById('left').flashScrollIndicators()")
        bar = b.wait(lambda: (lambda s: s if s["opacity"] == "1" else None)(self.indicator("vertical")), "the flash")
        left, top, width, height = self.box("left")
        self.assertEqual(bar["right"], left + width - 30 - 3, "3 points inside the right inset")
        self.assertLessEqual(bar["bottom"], top + height - 20)
        self.assertEqual(self.indicator("horizontal")["bottom"], top + height - 20 - 3)
        b.wait(lambda: self.indicator("vertical")["opacity"] == "0", "the bars to fade again", timeout=5)

    def indicator(self, which):
        return self.get("left", f"""(() => {{ const e = v.shadowRoot.querySelector('.indicator.{which}'); const r = e.getBoundingClientRect();
            return {{opacity: e.style.opacity, right: r.right, bottom: r.bottom}}; }})()""")

    def test_keys_go_only_to_the_focused_viewer(self):
        self.open_embed()
        b = self.browser
        before = [self.get(v, "v.zoomScale") for v in ("left", "right")]
        b.driver.find_element("css selector", "h1").click()
        b.driver.find_element("css selector", "body").send_keys("+")
        time.sleep(0.4)  # long enough for a key zoom (320 ms) to have moved: nothing may have
        self.assertEqual([self.get(v, "v.zoomScale") for v in ("left", "right")], before)
        b.driver.find_element("id", "right").send_keys("+")
        self.wait_idle("right")
        self.assertEqual(self.get("left", "v.zoomScale"), before[0])
        self.assertTrue(close(self.get("right", "v.zoomScale"), before[1] * 2, 1e-12))

    def test_zz_screenshot_for_the_readme(self):
        """Writes docs/embed.png: embed.html after zooming both viewers to their middles."""
        b = self.browser
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 640, "deviceScaleFactor": 1, "mobile": False})
        try:
            self.open_embed()
            b.driver.find_element("id", "detail").click()
            for viewer in ("left", "right"):
                self.wait_idle(viewer)
            time.sleep(0.8)  # the scroll indicators fade out
            path = os.path.join(REPO, "docs", "embed.png")
            b.screenshot().save(path, optimize=True)
            self.assertGreater(os.path.getsize(path), 50_000)
        finally:
            b.cdp("Emulation.clearDeviceMetricsOverride", {})


class ServedElementTests(ViewerTestCase):
    def test_iiif_info_json_source_draws_the_image_from_region_tiles(self):
        b = self.browser
        b.open("/")
        b.wait(lambda: b.js("return document.querySelector('.card-link')"), "the list")
        b.js("""document.body.replaceChildren(); const v = document.createElement('tiler-viewer'); v.id = 'iiif';
                v.style.cssText = 'position: fixed; inset: 0'; v.src = '/iiif/3/pic/info.json'; document.body.append(v);""")
        state = b.wait(lambda: b.js("const s = document.getElementById('iiif').debug; return s && s.complete && s.loaded ? s : null"), "the IIIF image")
        self.assertEqual(state["loader"]["failed"], 0)
        self.assertTrue(all("/iiif/3/pic/" in url and url.endswith("/0/default.jpg") for url in state["wanted"]), state["wanted"][:3])
        self.assertEqual([r for r in b.network() if "/visible" in r["url"]], [], "no reports for an IIIF source")
        shot = b.screenshot()
        v = state["view"]
        expected = reference(self.pyramids.sources["pic"], v, (v["width"], v["height"]))
        self.assertLess(mean_difference(shot, expected, (0, 0) + expected.size), 10)


    def visible_count(self):
        with urllib.request.urlopen(self.server.url + "/metrics", timeout=10) as response:
            text = response.read().decode()
        return sum(int(float(line.rsplit(" ", 1)[1])) for line in text.splitlines() if line.startswith('tiler_http_requests_total{route="visible"'))

    def test_served_viewer_reports_its_viewport_while_moving_and_on_settle(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 600, "y": 400})
        before = self.visible_count()
        b.drain()
        t = time.time()
        b.cdp("Input.dispatchMouseEvent", {"type": "mousePressed", "x": 600, "y": 400, "button": "left", "buttons": 1, "clickCount": 1, "timestamp": t})
        for step in range(1, 31):
            b.cdp("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 600 - 10 * step, "y": 400, "button": "left", "buttons": 1, "timestamp": t + 0.02 * step})
            time.sleep(0.03)
        b.cdp("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": 300, "y": 400, "button": "left", "buttons": 0, "clickCount": 1, "timestamp": time.time() + 1})
        state = b.wait_complete()
        reports = [r["url"] for r in b.network() if "/visible?" in r["url"]]
        self.assertGreaterEqual(len(reports), 2, "reports while moving and on settle")
        self.assertLessEqual(len(reports), 12, "at most a few a second")
        last = urllib.parse.parse_qs(urllib.parse.urlparse(reports[-1]).query)
        v = state["view"]
        self.assertEqual((float(last["x"][0]), float(last["y"][0]), float(last["zoomScale"][0])), (v["x"], v["y"], v["zoomScale"]), "the settled view")
        self.assertEqual((last["contentScale"], last["prefetch"]), (["1"], ["1"]))
        self.assertRegex(last["viewer"][0], r"^[0-9a-z]+$")
        self.assertGreaterEqual(self.visible_count() - before, len(reports), "the server received them")

    def test_a_flicks_resting_point_is_reported_as_the_finger_lifts(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 900, "y": 600})
        b.drain()
        start = time.time()
        mouse = lambda kind, x, y, **extra: b.cdp("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", **extra})
        mouse("mousePressed", 600, 300, buttons=1, clickCount=1, timestamp=start)
        for step in range(1, 13):
            mouse("mouseMoved", 600 - 12 * step, 300 - 2 * step, buttons=1, timestamp=start + 0.01 * step)
        mouse("mouseReleased", 456, 276, buttons=0, clickCount=1, timestamp=start + 0.125)
        # The deceleration lasts seconds; its resting point is reported within a frame or two of the release.
        moving = b.wait(lambda: (s := b.state()) and s["predictedReports"] >= 1 and s, "the flick's target to be reported", 5)
        self.assertFalse(moving["gestureIdle"], "reported while the content still glides")
        settled = moving["lastFlick"]["settled"]
        reports = [urllib.parse.parse_qs(urllib.parse.urlparse(r["url"]).query) for r in b.network() if "/visible?" in r["url"]]
        targets = [q for q in reports if close(float(q["x"][0]), settled["x"], 1e-9) and close(float(q["y"][0]), settled["y"], 1e-9)]
        self.assertEqual(len(targets), 1, f"one report of the resting point {settled} among {len(reports)}")
        self.assertEqual(float(targets[0]["width"][0]), moving["view"]["width"], "the view itself, not a stretch")
        state = b.wait_complete()
        self.assertEqual((state["view"]["x"], state["view"]["y"]), (settled["x"], settled["y"]))

    def test_app_insets_let_both_corners_be_scrolled_clear_of_the_chrome(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 1, "x": 500, "y": 500}, hide_chrome=False)
        bar = b.js("const r = document.querySelector('.bar').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]")
        nav = b.js("const r = document.querySelector('tiler-viewer').shadowRoot.querySelector('.navigator').getBoundingClientRect();"
                   "return [r.left, r.top, r.right, r.bottom]")
        width, height = b.state()["view"]["width"], b.state()["view"]["height"]
        # As far up and left as a drag can rest: the image's top-left corner below the bar, in the window.
        b.js("window.tiler.viewer.setView({zoomScale: 1, x: -1e6, y: -1e6})")
        offset = b.js("return window.tiler.viewer.contentOffset")
        self.assertEqual(offset["x"], 0)
        self.assertGreaterEqual(-offset["y"], bar[3], "the top-left corner is below the bar")
        self.assertLess(-offset["y"], bar[3] + 20)
        # As far down and right: the bottom-right corner clear of the navigator — above it or beside it, whichever band
        # the app keeps clear for this window (the one that fits the image larger) — in the window.
        b.js("window.tiler.viewer.setView({zoomScale: 1, x: 1e6, y: 1e6})")
        offset = b.js("return window.tiler.viewer.contentOffset")
        corner = (3000 - offset["x"], 2000 - offset["y"])
        self.assertTrue(corner[0] == width and corner[1] <= nav[1] or corner[0] <= nav[0] and corner[1] == height,
                        f"the bottom-right corner {corner} is clear of the navigator {nav}")
        self.assertLessEqual(corner[0], width)
        self.assertLessEqual(corner[1], height)
        inset = b.js("return window.tiler.viewer.scrollIndicatorInsets")
        self.assertEqual(inset, b.js("return window.tiler.viewer.contentInset"), "the indicators stay clear of the chrome too")
