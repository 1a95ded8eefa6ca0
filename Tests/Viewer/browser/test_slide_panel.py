"""A slide shown as a slide (issue 48, item 3, and the 16 × 16 navigator of item 7), in the app on `tiler serve` over
the whole-slide images Tests/Support/slides/make_slides.py writes and a 16 × 16 picture: the side panel with the
objective, label, macro and properties; the magnification read-out and presets (objective × zoomScale); the scale
bar anchored to the window's bottom; a square slide fitted beside the navigator, using the window's height; and a
navigator never larger than the image it shows. Screenshots go to $TILER_SCREENSHOTS (or the test folder)."""

import os
import subprocess
import tempfile

from harness import REPO, TILER, Server, run
from viewer_case import ViewerTestCase

V = "const v = document.querySelector('tiler-viewer');"


class SlidePanelTests(ViewerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="tiler-slide-panel-")
        root = os.path.join(cls.folder, "root")
        subprocess.run(["/usr/bin/python3", os.path.join(REPO, "Tests", "Support", "slides", "make_slides.py"), root], check=True)
        tiny = os.path.join(cls.folder, "tiny.jpg")
        run([TILER, "sample", tiny, "--size", "16x16", "--seed", "2", "--quiet"])
        run([TILER, "slice", tiny, "-o", root, "--quiet"])
        cls.slides = Server(root, os.path.join(cls.folder, "serve.log"))
        cls.shots = os.environ.get("TILER_SCREENSHOTS", cls.folder)

    @classmethod
    def tearDownClass(cls):
        cls.slides.stop()
        subprocess.run(["rm", "-rf", cls.folder], check=False)

    def open_app(self, fragment):
        self.browser.open_url(self.slides.url + "/" + fragment)
        return self.browser.wait_complete()

    def test_a_slide_has_its_panel_magnification_presets_and_an_anchored_scale_bar(self):
        b = self.browser
        self.open_app("#image=pyramid")
        panel = b.wait(lambda: b.js("""const p = document.querySelector('.slide-panel');
            if (!p || p.hidden) return null;
            const imgs = [...p.querySelectorAll('figure img')];
            if (imgs.length < 2 || !imgs.every(i => i.complete && i.naturalWidth > 0)) return null;
            if (!p.querySelector('.slide-properties dt')) return null;
            return {facts: p.querySelector('.slide-facts').textContent, images: imgs.map(i => [i.alt, i.naturalWidth]),
                    properties: [...p.querySelectorAll('.slide-properties dt')].map(d => d.textContent),
                    presets: [...p.querySelectorAll('.preset')].map(x => x.textContent)}"""), "the slide panel with its images and properties")
        self.assertIn("40× objective", panel["facts"])
        self.assertIn("0.25 µm per pixel", panel["facts"])
        self.assertEqual([w for _, w in panel["images"]], [240, 400], "the label and the macro")
        self.assertIn("openslide.objective-power", panel["properties"])
        self.assertEqual(panel["presets"], ["1×", "5×", "10×", "20×", "40×"])
        self.assertEqual(b.js("return document.querySelector('.bar .slide').getAttribute('aria-expanded')"), "true")
        # The panel is outside the content: the image is fitted to its right.
        left = b.js(V + "return v.contentInset.left")
        panel_right = b.js("return document.querySelector('.slide-panel').getBoundingClientRect().right")
        self.assertGreaterEqual(left, panel_right)

        for preset, zoom in (("20×", 0.5), ("40×", 1.0)):
            b.js("[...document.querySelectorAll('.preset')].find(x => x.textContent === arguments[0]).click()", preset)
            state = b.wait_complete()
            self.assertAlmostEqual(state["view"]["zoomScale"], zoom, places=9, msg=preset)
            shown = b.js("return [document.querySelector('.slide-mag').textContent, document.querySelector('.bar .zoom').textContent,"
                         " [...document.querySelectorAll('.preset[aria-pressed=true]')].map(x => x.textContent)]")
            self.assertEqual(shown, [preset, preset, [preset]], "the read-out in the panel and the bar, the preset pressed")
        b.wait(lambda: b.js(V + "return v.shadowRoot.querySelector('.live').textContent") == "Magnification 40×", "the magnification said too")

        # The scale bar sits 12 points above the window's bottom, right of the panel.
        bar = b.js(V + "const r = v.shadowRoot.querySelector('.scale-bar').getBoundingClientRect(); return [r.left, r.bottom, innerHeight]")
        self.assertEqual(bar[1], bar[2] - 12, "anchored to the bottom")
        self.assertGreaterEqual(bar[0], panel_right)
        b.screenshot().save(os.path.join(self.shots, "slide-panel.png"))

        # Its button closes the panel; the image then uses the room.
        b.js("document.querySelector('.bar .slide').click()")
        b.wait(lambda: b.js(V + "return v.contentInset.left === 0 && document.querySelector('.slide-panel').hidden"), "the panel to close")
        self.assertEqual(b.js("return document.querySelector('.bar .slide').getAttribute('aria-expanded')"), "false")

    def test_a_square_slide_is_fitted_beside_the_navigator_using_the_window_height(self):
        b = self.browser
        self.open_app("#image=planes")
        b.js("document.querySelector('.bar .slide').click()")  # the panel closed: the window is the slide's
        b.wait(lambda: b.js(V + "return v.contentInset.left === 0"), "the panel to close")
        b.js(V + "v.setZoomScale(v.minimumZoomScale, false)")
        state = b.wait_complete()
        inset = b.js(V + "return v.contentInset")
        nav = b.js(V + "const r = v.shadowRoot.querySelector('.navigator').getBoundingClientRect(); return [r.left, r.top]")
        top = b.js("return document.querySelector('.bar').getBoundingClientRect().bottom")
        v = state["view"]
        side = 1024 * v["zoomScale"]
        self.assertEqual(inset["bottom"], 0, "no band along the whole bottom")
        self.assertGreater(inset["right"], 0, "the navigator's band is at the right")
        self.assertAlmostEqual(side, v["height"] - inset["top"], delta=0.5, msg="as tall as the window below the bar")
        self.assertGreater(side, v["height"] - top - 30)
        self.assertLessEqual(-v["x"] + side, nav[0], "clear of the navigator")

    def test_a_16_pixel_images_navigator_is_no_larger_than_the_image(self):
        b = self.browser
        state = self.open_app("#image=tiny")
        self.assertEqual(state["view"]["zoomScale"], 1)
        b.wait(lambda: b.js(V + "return v.shadowRoot.querySelector('.navigator canvas').width > 0"), "the navigator drawn")
        size = b.js(V + "const r = v.shadowRoot.querySelector('.navigator').getBoundingClientRect(); return [r.width, r.height]")
        self.assertLessEqual(size[0], 16 * state["view"]["zoomScale"] + 2, "not larger than the image in the main view (plus its border)")
        self.assertLessEqual(size[1], 16 * state["view"]["zoomScale"] + 2)
