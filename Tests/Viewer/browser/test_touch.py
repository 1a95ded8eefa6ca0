"""`<tiler-viewer>` under fingers as UIScrollView is (issue 29, items 5–7 and 9), with CDP touch events: two fingers
that rest are no zoom, a finger added to a drag ends it through `willEndDragging`, the scroll indicators stay while
a finger is down, and `panMinimumTouches = 2` lets one finger scroll the page past the element."""

import time

from embed_case import ZOOM, EmbedTestCase


class TouchTests(EmbedTestCase):
    def setUp(self):
        super().setUp()
        self.use_new_tab()
        self.open_embed()
        self.browser.js("document.getElementById('left').setView({zoomScale: 0.5, x: 400, y: 300})")
        left, top, width, height = self.box("left")
        self.mid = (left + width / 2, top + height / 2)
        self.events("left")

    def pair(self, spread, dy=0):
        """Two fingers `spread` points either side of the middle of `left`, moved down by `dy`."""
        x, y = self.mid
        return [(x - spread, y + dy), (x + spread, y + dy)]

    def test_two_fingers_that_rest_and_lift_are_no_zoom_and_a_two_finger_tap_is_one_zoom(self):
        b = self.browser
        b.js("const v = document.getElementById('left'); window.zoomingSeen = []; v.addEventListener('didzoom', () => window.zoomingSeen.push(v.isZooming));")
        t = time.time()
        self.touch("touchStart", self.pair(40), t)
        b.wait(lambda: self.get("left", "v.isTracking"), "the fingers to be down")
        self.assertFalse(self.get("left", "v.isZooming"), "resting fingers track but do not zoom")
        self.touch("touchEnd", [], t + 0.6)  # lifted after 600 ms: too slow for a tap
        time.sleep(0.4)
        self.assertEqual(self.events("left"), [], "no zoom begin or end, nothing at all")
        self.assertEqual(self.get("left", "v.zoomScale"), 0.5)
        t = time.time()
        self.touch("touchStart", self.pair(40), t)
        self.touch("touchEnd", [], t + 0.08)  # a two-finger tap zooms out, once
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ZOOM)
        self.assertEqual(self.get("left", "v.zoomScale"), 0.25)
        self.assertEqual(b.js("return window.zoomingSeen.filter(z => z)"), [], "the tap's zoom is an animation, not a gesture")

    def test_a_finger_added_to_a_drag_ends_it_through_will_end_dragging(self):
        x, y = self.mid
        t = time.time()
        # One finger drags; a second lands and both move on together; they lift.
        self.touch("touchStart", [(x, y)], t)
        for step in range(1, 6):
            self.touch("touchMove", [(x - 8 * step, y)], t + 0.016 * step)
        self.touch("touchStart", [(x - 40, y), (x + 60, y)], t + 0.1)
        for step in range(1, 6):
            self.touch("touchMove", [(x - 40 - 6 * step, y), (x + 60 - 6 * step, y)], t + 0.1 + 0.016 * step)
        self.browser.wait(lambda: self.get("left", "v.isDragging"), "two fingers moving together to drag on", timeout=3)
        self.touch("touchEnd", [], t + 0.5)
        self.wait_idle("left")
        events = self.events("left")
        self.assertEqual(events[:4], ["willbegindragging", "move", "willenddragging", "didenddragging(false)"], events)
        self.assertEqual(self.get("left", "v.contentOffset")["x"], 400 + 40 + 30, "the content followed the fingers 1:1, no jump")
        # One finger drags; a second lands and they spread: the drag ends (through willEndDragging) and a pinch begins.
        t = time.time()
        self.touch("touchStart", [(x, y)], t)
        for step in range(1, 6):
            self.touch("touchMove", [(x - 8 * step, y)], t + 0.016 * step)
        self.touch("touchStart", [(x - 40, y), (x + 40, y)], t + 0.1)
        for step in range(1, 6):
            self.touch("touchMove", [(x - 40 - 10 * step, y), (x + 40 + 10 * step, y)], t + 0.1 + 0.016 * step)
        self.touch("touchEnd", [], t + 0.3)
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["willbegindragging", "move", "willenddragging", "didenddragging(false)", "willbeginzooming", "move", "didendzooming"])

    def test_scroll_indicators_stay_while_the_finger_is_down_and_fade_after_it_lifts(self):
        b = self.browser
        x, y = self.mid
        t = time.time()
        self.touch("touchStart", [(x, y)], t)
        for step in range(1, 6):
            self.touch("touchMove", [(x - 10 * step, y - 6 * step)], t + 0.016 * step)
        b.wait(lambda: self.indicator_opacity() == "1", "the bars to show while dragging", timeout=3)
        time.sleep(0.9)  # UIKit's bars would have faded by now if the finger had lifted (0.5 s)
        self.assertEqual(self.indicator_opacity(), "1", "the finger is still down")
        self.touch("touchEnd", [], time.time())  # rested: no flick
        b.wait(lambda: self.indicator_opacity() == "0", "the bars to fade after the lift", timeout=3)

    def indicator_opacity(self):
        return self.get("left", "v.shadowRoot.querySelector('.indicator.vertical').style.opacity")

    def test_pan_minimum_touches_two_lets_one_finger_scroll_the_page(self):
        b = self.browser
        b.js("const d = document.createElement('div'); d.style.height = '3000px'; document.body.append(d);")
        self.assertEqual(self.get("left", "getComputedStyle(v).touchAction"), "none", "by default the element takes every touch")
        b.js("document.getElementById('left').setAttribute('pan-minimum-touches', '2')")
        self.assertEqual(self.get("left", "[v.panMinimumTouches, getComputedStyle(v).touchAction]"), [2, "pan-x pan-y"])
        x, y = self.mid
        t = time.time()
        self.touch("touchStart", [(x, y)], t)
        for step in range(1, 11):
            self.touch("touchMove", [(x, y - 20 * step)], t + 0.016 * step)
        self.touch("touchEnd", [], t + 0.3)
        b.wait(lambda: b.js("return window.scrollY") > 100, "one finger to scroll the page")
        b.wait(lambda: b.js("const y = window.scrollY; return new Promise((done) => setTimeout(() => done(window.scrollY === y), 200))"),
               "the page to stop scrolling")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 400, "y": 300}, "and not the image")
        self.assertEqual(self.events("left"), [])
        b.js("window.scrollTo(0, 0)")
        left, top, width, height = self.box("left")
        x, y = left + width / 2, top + height / 2
        t = time.time()
        self.touch("touchStart", [(x - 30, y), (x + 30, y)], t)
        for step in range(1, 11):
            self.touch("touchMove", [(x - 30, y - 10 * step), (x + 30, y - 10 * step)], t + 0.016 * step)
        self.touch("touchEnd", [], t + 0.5)
        self.wait_idle("left")
        self.assertEqual(b.js("return window.scrollY"), 0, "two fingers do not scroll the page")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 400, "y": 400}, "they drag the image 1:1")
        self.assertEqual(self.events("left")[:2], ["willbegindragging", "move"])
        b.js("document.getElementById('left').panMinimumTouches = 1")
        self.assertEqual(self.get("left", "getComputedStyle(v).touchAction"), "none")
        t = time.time()
        self.touch("touchStart", [(x, y)], t)
        for step in range(1, 11):
            self.touch("touchMove", [(x, y - 10 * step)], t + 0.016 * step)
        self.touch("touchEnd", [], t + 0.5)
        self.wait_idle("left")
        self.assertEqual(b.js("return window.scrollY"), 0)
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 400, "y": 500}, "one finger drags the image again")
