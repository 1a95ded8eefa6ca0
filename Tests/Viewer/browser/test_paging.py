"""`<tiler-viewer>`'s paging, scroll-to-top and indicator styles (issue 29, item 8), with CDP mouse input and keys:
drags rest on pages of the box less its insets, at most one page from where they began, whatever the delegate says;
Home and `scrollToTop()` ask the delegate and end with `didScrollToTop`; the three indicator styles as drawn."""

import time

from embed_case import FLICK, EmbedTestCase


class PagingTests(EmbedTestCase):
    def drag(self, viewer, dx, steps, rest):
        """A mouse drag over `viewer` by `dx` points per 10 ms step, lifted 5 ms after the last move or after resting."""
        left, top, width, height = self.box(viewer)
        x, y = left + width / 2, top + height / 2
        t = time.time()
        self.mouse("mousePressed", x, y, t, buttons=1, clickCount=1)
        for step in range(1, steps + 1):
            self.mouse("mouseMoved", x + dx * step, y, t + 0.01 * step, buttons=1)
        self.mouse("mouseReleased", x + dx * steps, y, t + 0.01 * steps + (0.3 if rest else 0.005), buttons=0, clickCount=1)
        return self.wait_idle(viewer)

    def test_paging_rests_on_pages_of_the_box_less_its_insets(self):
        self.open_embed()
        b = self.browser
        width, height = self.get("left", "[v.scrollView.viewportSize.width, v.scrollView.viewportSize.height]")
        page = (width - 10 - 30, height - 20 - 40)
        b.js("""const v = document.getElementById('left'); v.isPagingEnabled = true; v.contentInset = {top: 20, left: 10, bottom: 40, right: 30};
                v.setView({zoomScale: 1, x: -10 + 2 * arguments[0], y: -20 + arguments[1]});
                v.delegate = { scrollViewWillEndDragging(viewer, velocity, target) { target.x = 0; } };""", *page)
        self.assertTrue(self.get("left", "v.pagingEnabled"), "UIKit's Objective-C name reads the same property")
        self.events("left")
        pages = lambda k: {"x": -10 + k * page[0], "y": -20 + page[1]}  # noqa: E731
        for what, dx, steps, rest, expected in [
            ("a short quick flick turns one page", -6, 6, False, 3),
            ("a slow drag 40 % of the way springs back", -0.4 * page[0] / 10, 10, True, 3),
            ("a slow drag 60 % of the way turns the page", -0.6 * page[0] / 10, 10, True, 4),
            ("a long fast flick still turns only one page", -1.3 * page[0] / 10, 10, False, 5),
        ]:
            b.js("window.targets = []")
            self.drag("left", dx, steps, rest)
            self.assertEqual(self.events("left"), FLICK, what)
            self.assertEqual(self.get("left", "v.contentOffset"), pages(expected), what)
            self.assertEqual(b.js("return window.targets"), [pages(expected)], f"{what}: the page is the target the delegate sees")

    def test_scroll_to_top_asks_the_delegate_and_ends_with_did_scroll_to_top(self):
        self.open_embed()
        b = self.browser
        b.js("""const v = document.getElementById('left'); v.contentInset = {top: 30, left: 0, bottom: 0, right: 0};
                v.setView({zoomScale: 1, x: 500, y: 900}); window.asked = 0; window.allow = false;
                v.delegate = { scrollViewShouldScrollToTop() { window.asked += 1; return window.allow; } };""")
        self.events("left")
        self.assertFalse(b.js("return document.getElementById('left').scrollToTop()"), "the delegate says no")
        self.assertEqual((self.get("left", "v.contentOffset"), self.events("left"), b.js("return window.asked")), ({"x": 500, "y": 900}, [], 1))
        b.js("window.allow = true")
        self.assertTrue(b.js("return document.getElementById('left').scrollToTop()"))
        self.wait_idle("left")
        self.assertEqual(self.events("left"), ["move", "didscrolltotop"], "not didEndScrollingAnimation")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 500, "y": -30}, "the top inside the inset; x kept")
        self.assertFalse(b.js("return document.getElementById('left').scrollToTop()"), "already at the top: nothing")
        self.assertEqual(b.js("return window.asked"), 2)
        element = b.driver.find_element("id", "left")
        b.js("document.getElementById('left').setContentOffset({x: 500, y: 700})")
        element.send_keys("\ue011")  # Home
        self.wait_idle("left")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 500, "y": -30}, "Home scrolls to the top")
        b.js("const v = document.getElementById('left'); v.setContentOffset({x: 500, y: 700}); v.setAttribute('scrolls-to-top', 'false');")
        self.events("left")
        element.send_keys("\ue011")
        time.sleep(0.4)  # longer than the scroll to the top (320 ms)
        self.assertEqual((self.get("left", "v.contentOffset"), self.events("left")), ({"x": 500, "y": 700}, []), "scrollsToTop false: nothing")
        b.js("const v = document.getElementById('left'); v.scrollsToTop = true; v.addEventListener('shouldscrolltotop', (e) => e.preventDefault());")
        self.assertFalse(b.js("return document.getElementById('left').scrollToTop()"), "a cancelled shouldscrolltotop event says no too")

    def test_indicator_styles_as_drawn(self):
        self.open_embed()
        b = self.browser
        b.js("document.getElementById('left').setView({zoomScale: 1, x: 800, y: 600})")
        looks = {}
        for style in ("default", "black", "white"):
            b.js("document.getElementById('left').indicatorStyle = arguments[0]", style)
            looks[style] = self.flashed_bar()
        self.assertEqual(looks["default"][:2], ("rgba(0, 0, 0, 0.45)", "rgba(255, 255, 255, 0.35) 0px 0px 0px 1px"), "black with a white border")
        self.assertEqual(looks["black"][:2], ("rgba(0, 0, 0, 0.55)", "none"))
        self.assertEqual(looks["white"][:2], ("rgba(255, 255, 255, 0.7)", "none"))
        self.assertLess(looks["black"][2], looks["default"][2], "narrower than the default")
        self.assertLess(looks["black"][3], 110, "the black bar is drawn dark")
        self.assertGreater(looks["white"][3], 175, "the white bar is drawn light")
        b.js("document.getElementById('left').setAttribute('indicator-style', 'black')")
        self.assertEqual(self.get("left", "v.indicatorStyle"), "black")
        with self.assertRaises(Exception):
            b.js("document.getElementById('left').indicatorStyle = 'grey'")

    def flashed_bar(self):
        """Flashes the bars and returns the vertical one's background, shadow, width and mean brightness on screen."""
        b = self.browser
        script = """const e = document.getElementById('left').shadowRoot.querySelector('.indicator.vertical'); const s = getComputedStyle(e);
                    const r = e.getBoundingClientRect(); return [s.backgroundColor, s.boxShadow, r.width, e.style.opacity, s.opacity, [r.left, r.top, r.right, r.bottom]];"""
        for _ in range(3):  # a loaded machine may take longer than the flash lasts (1 s)
            b.js("document.getElementById('left').flashScrollIndicators()")
            b.wait(lambda: b.js(script)[4] == "1", "the flash to show fully (its 0.3-s fade-in)", timeout=3)
            shot = b.screenshot()
            background, shadow, width, shown, opacity, (left, top, right, bottom) = b.js(script)
            if shown == "1" and opacity == "1":
                crop = shot.crop((int(left) + 1, int(top) + 4, int(right), int(bottom) - 4)).convert("L")
                brightness = sum(crop.getdata()) / (crop.width * crop.height)
                return background, shadow, width, brightness
        self.fail("the flashed bar never stayed long enough for a screenshot")
