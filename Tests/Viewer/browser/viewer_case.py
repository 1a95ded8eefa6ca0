"""The base class of the browser tests: the shared world, opening views, comparing with the source."""

import unittest

from harness import World, mean_difference, reference


def close(a, b, tolerance=1e-9):
    """Whether `a` equals `b` up to a relative `tolerance`."""
    return abs(a - b) <= tolerance * max(1.0, abs(b))


class ViewerTestCase(unittest.TestCase):
    """Shares one server and browser; every test must leave the console free of errors unless it says otherwise."""

    expect_console_errors = False

    def setUp(self):
        world = World.shared()
        self.world = world
        self.browser = world.browser
        self.pyramids = world.pyramids
        self.server = world.server
        self.browser.drain()

    def tearDown(self):
        errors = self.browser.console_errors()
        if not self.expect_console_errors:
            self.assertEqual(errors, [], "console errors")

    def use_new_tab(self):
        """Runs the rest of the test in a tab of its own, closed when the test ends. After a two-finger CDP touch
        sequence, Chromium (156) delivers no more touch events to the pages later loaded in that tab, so a test that
        touches starts in a fresh one and leaves none stuck behind."""
        driver = self.browser.driver
        original = driver.current_window_handle
        driver.switch_to.new_window("tab")
        self.browser.cdp("Network.enable", {})
        self.browser.cdp("Network.setCacheDisabled", {"cacheDisabled": True})

        def close():
            driver.close()
            driver.switch_to.window(original)
        self.addCleanup(close)

    def open_view(self, image, view=None, query="", hide_chrome=True):
        """Opens `image` (at `view`, a dict of zoomScale, x, y) in a fresh page and waits until it is complete."""
        fragment = f"#image={image}"
        if view:
            fragment += f"&x={view['x']}&y={view['y']}&zoom={view['zoomScale']}"
        self.browser.open(f"/{query}{fragment}")
        state = self.browser.wait_complete()
        self.browser.hide_chrome(hide_chrome)
        return state

    def image_point(self, point):
        return self.browser.js("const v = window.tiler.viewer.scrollView; return v.imagePointAt({x: arguments[0], y: arguments[1]});", *point)

    def assert_matches_source(self, image, state, limit=10.0):
        """The screenshot against a Lanczos rendering of the source at the same view. The sample pictures are full of
        fine texture, so JPEG tiles and bilinear resampling alone differ by 4–9 on average; a misplaced or missing
        tile by far more, and the check shows it can fail: the same rendering shifted by 16 points differs far more."""
        shot = self.browser.screenshot()
        scale = state["view"]["devicePixelRatio"]
        size = (state["view"]["width"], state["view"]["height"])
        expected = reference(self.pyramids.sources[image], state["view"], size, scale)
        difference = mean_difference(shot, expected, (0, 0) + expected.size)
        shifted = reference(self.pyramids.sources[image], dict(state["view"], x=state["view"]["x"] + 16), size, scale)
        self.assertLess(difference, limit, "the canvas differs from the source rendered at that view")
        self.assertGreater(mean_difference(shot, shifted, (0, 0) + expected.size), 2 * difference + 3)
        return shot, expected
