"""`<tiler-viewer>`'s indicator styles (issue 29, item 8): the three styles as drawn."""

from embed_case import EmbedTestCase


class PagingTests(EmbedTestCase):
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
