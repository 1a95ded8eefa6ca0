"""On-screen controls, rotation, flip and full screen (issue 48, item 4): `<tiler-viewer>` on embed.html shows none
unless its `controls` attribute is set; then zoom in and out, home, full screen, rotate 90° and flip each do what
they say, the turned and mirrored canvas matches the source turned and mirrored, and in the app (on `tiler serve`)
a turned view's viewport reports describe the part of the image as stored that is on screen. Screenshots go to
$TILER_SCREENSHOTS (or the test folder)."""

import os
import urllib.parse

from PIL import Image

from embed_case import EmbedTestCase
from harness import mean_difference, reference
from viewer_case import ViewerTestCase, close

CONTROLS = "v.shadowRoot.querySelector('.controls')"


class ControlsTests(EmbedTestCase):
    def click_control(self, viewer, name):
        self.get(viewer, f"{CONTROLS}.querySelector('button.{name}').click()")

    def assert_shows(self, viewer, source, limit=12.0):
        """The viewer's box in a screenshot against `source` rendered at its view."""
        state = self.wait_idle(viewer)
        left, top, width, height = [round(n) for n in self.box(viewer)]
        self.get(viewer, f"(() => {{ const c = {CONTROLS}; if (c) c.style.visibility = 'hidden'; }})()")
        shot = self.browser.screenshot().crop((left, top, left + width, top + height))
        self.get(viewer, f"(() => {{ const c = {CONTROLS}; if (c) c.style.visibility = ''; }})()")
        v = state["view"]
        expected = reference(source, v, (v["width"], v["height"]))
        difference = mean_difference(shot, expected)
        self.assertLess(difference, limit, "the canvas differs from the source turned as the viewer says")
        return difference

    def test_controls_are_off_by_default_and_one_attribute_turns_them_on(self):
        self.open_embed()
        b = self.browser
        self.assertIsNone(self.get("left", CONTROLS), "no controls by default")
        b.js("document.getElementById('left').setAttribute('controls', '')")
        self.assertEqual(self.get("left", f"[...{CONTROLS}.querySelectorAll('button')].filter(b => !b.hidden).map(b => b.getAttribute('aria-label'))"),
                         ["Zoom in", "Zoom out", "Fit the whole image", "Full screen", "Rotate 90° clockwise", "Flip left and right"])
        self.assertEqual(self.get("left", "v.showsControls"), True)
        source = self.pyramids.sources["pic"]
        fit = self.get("left", "v.zoomScale")
        self.click_control("left", "zoom-in")
        self.wait_idle("left")
        self.assertTrue(close(self.get("left", "v.zoomScale"), 2 * fit, 1e-9))
        self.click_control("left", "zoom-out")
        self.wait_idle("left")
        self.assertTrue(close(self.get("left", "v.zoomScale"), fit, 1e-9))
        self.click_control("left", "zoom-in")
        self.wait_idle("left")
        self.click_control("left", "home")
        self.wait_idle("left")
        self.assertEqual(self.get("left", "v.zoomScale"), self.get("left", "v.minimumZoomScale"))

        # Rotate: the content is the picture turned clockwise (3000 × 2000 becomes 2000 × 3000).
        self.click_control("left", "rotate")
        self.assertEqual(self.get("left", "[v.rotation, v.getAttribute('rotation')]"), [90, None])
        size = self.get("left", "v.contentSize")
        z = self.get("left", "v.zoomScale")
        self.assertTrue(close(size["width"], 2000 * z, 1e-9) and close(size["height"], 3000 * z, 1e-9), size)
        self.assert_shows("left", source.transpose(Image.Transpose.ROTATE_270))
        self.click_control("left", "flip")
        self.assertEqual(self.get("left", f"[v.flipped, {CONTROLS}.querySelector('.flip').getAttribute('aria-pressed')]"), [True, "true"])
        self.assert_shows("left", source.transpose(Image.Transpose.ROTATE_270).transpose(Image.Transpose.FLIP_LEFT_RIGHT))
        # Zoomed in on a turned image, the tiles still meet the source exactly where the view says.
        self.get("left", "v.setZoomScale(0.8, false)")
        self.assert_shows("left", source.transpose(Image.Transpose.ROTATE_270).transpose(Image.Transpose.FLIP_LEFT_RIGHT))
        self.browser.screenshot().save(os.path.join(os.environ.get("TILER_SCREENSHOTS", self.pyramids.folder), "embed-controls.png"))

        # Full screen (a real click: the browser lets only a person's gesture go full screen): the element alone, and back.
        button = lambda: b.js(f"const v = document.getElementById('left'); return {CONTROLS}.querySelector('.fullscreen')")
        button().click()
        b.wait(lambda: b.js("return document.fullscreenElement === document.getElementById('left')"), "full screen")
        self.assertEqual(self.get("left", f"{CONTROLS}.querySelector('.fullscreen').getAttribute('aria-label')"), "Leave full screen")
        button().click()
        b.wait(lambda: b.js("return document.fullscreenElement === null"), "full screen to end")
        b.js("const v = document.getElementById('left'); v.rotation = 0; v.flipped = false; v.removeAttribute('controls')")
        self.assertTrue(self.get("left", f"{CONTROLS}.hidden"))


class RotatedReportTests(ViewerTestCase):
    def test_a_turned_views_reports_describe_the_image_as_stored(self):
        b = self.browser
        self.open_view("pic", hide_chrome=False)
        names = b.js("return [...document.querySelectorAll('.bar button')].map(b => b.getAttribute('aria-label'))")
        self.assertIn("Rotate 90° clockwise (R)", names)
        self.assertIn("Full screen (F)", names)
        b.js("document.querySelector('.bar .rotate').click()")
        b.wait_complete()
        b.js("window.tiler.viewer.setView({zoomScale: 0.5, x: 150, y: 260})")
        state = b.wait_complete()
        self.assertEqual(b.js("return window.tiler.viewer.rotation"), 90)
        v = state["view"]
        reports = []

        def turned_report():
            reports.extend(urllib.parse.parse_qs(urllib.parse.urlparse(r["url"]).query) for r in b.network() if "/visible?" in r["url"])
            return any(float(q["zoomScale"][0]) == 0.5 for q in reports)
        b.wait(turned_report, "the turned view's report")
        last = [q for q in reports if float(q["zoomScale"][0]) == 0.5][-1]
        # Shown x runs along the stored image's bottom-to-top: stored x = shown y, stored y = 2000·z − (shown x + width).
        self.assertEqual(float(last["width"][0]), v["height"])
        self.assertEqual(float(last["height"][0]), v["width"])
        self.assertAlmostEqual(float(last["x"][0]), v["y"], places=6)
        self.assertAlmostEqual(float(last["y"][0]), 2000 * 0.5 - (v["x"] + v["width"]), places=6)
        self.assert_matches_source_turned(state)

    def assert_matches_source_turned(self, state):
        self.browser.hide_chrome(True)
        shot = self.browser.screenshot()
        v = state["view"]
        turned = self.pyramids.sources["pic"].transpose(Image.Transpose.ROTATE_270)
        expected = reference(turned, v, (v["width"], v["height"]))
        self.assertLess(mean_difference(shot, expected, (0, 0) + expected.size), 10)
