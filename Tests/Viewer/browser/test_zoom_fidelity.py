"""`<tiler-viewer>` zooms as UIScrollView does (issue 29, item 1): `setZoomScale` and the `zoomScale` setter zoom about
the centre, clamped."""

from embed_case import EmbedTestCase
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
