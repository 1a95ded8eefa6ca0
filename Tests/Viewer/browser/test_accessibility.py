"""Screen readers and keyboards (issue 48, item 6): `<tiler-viewer>`'s role and accessible name (from `alt` or
`label`, else the image's name), a focusable navigator that the arrow keys drive, live regions that say when the
image loads and where a zoom came to rest, the keyboard help on `?`, and axe-core (from PyPI's axe-selenium-python)
finding no violation of serious or critical impact on the app's list and viewer pages and on an embed with controls."""

import time

from axe_selenium_python import Axe

from embed_case import EmbedTestCase
from viewer_case import ViewerTestCase


def serious_violations(driver):
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"] if v["impact"] in ("serious", "critical")]


class ElementAccessibilityTests(EmbedTestCase):
    def test_role_name_navigator_live_regions_help_and_axe_on_an_embed(self):
        self.open_embed()
        b = self.browser
        self.assertEqual(self.get("left", "[v.getAttribute('role'), v.getAttribute('aria-roledescription'), v.getAttribute('aria-label')]"),
                         ["application", None, "left (zoomable image; press ? for keyboard help)"], "named after the image by default")
        b.js("document.getElementById('left').setAttribute('alt', 'A map of the lake')")
        self.assertEqual(self.get("left", "v.getAttribute('aria-label')"), "A map of the lake (zoomable image; press ? for keyboard help)")
        b.js("const v = document.getElementById('right'); v.setAttribute('label', 'Detail'); v.setAttribute('aria-label', 'Own name')")
        self.assertEqual(self.get("right", "v.getAttribute('aria-label')"), "Own name", "the page's own name wins")

        # The navigator: focusable, the arrow keys move the view.
        b.js("const v = document.getElementById('left'); v.setAttribute('navigator', ''); v.src = v.src + '?again'")
        b.wait(lambda: b.js("const v = document.getElementById('left'); return v.navigator && v.debug && v.debug.complete"), "the navigator")
        b.js("const v = document.getElementById('left'); v.setZoomScale(v.maximumZoomScale, false)")
        self.wait_idle("left")
        before = self.get("left", "v.contentOffset.x")
        b.js("document.getElementById('left').navigator.root.focus()")
        self.assertTrue(self.get("left", "v.shadowRoot.activeElement === v.navigator.root"))
        b.driver.switch_to.active_element.send_keys("\ue014")  # ArrowRight
        self.wait_idle("left")
        self.assertGreater(self.get("left", "v.contentOffset.x"), before, "the navigator's arrow key moved the view")

        # A zoom is said once it rests.
        b.js("document.getElementById('left').focus()")
        b.driver.switch_to.active_element.send_keys("-")
        self.wait_idle("left")
        z = self.get("left", "v.zoomScale")
        b.wait(lambda: self.get("left", "v.shadowRoot.querySelector('.live').textContent") == f"Zoom {round(z * 100)}%", "the zoom said")

        # `?` shows the keyboard help; Escape closes it.
        b.driver.switch_to.active_element.send_keys("?")
        self.assertFalse(self.get("left", "v.shadowRoot.querySelector('.help').hidden"))
        self.assertIn("Rotate", self.get("left", "v.shadowRoot.querySelector('.help').textContent"))
        b.driver.switch_to.active_element.send_keys("\ue00c")  # Escape
        self.assertTrue(self.get("left", "v.shadowRoot.querySelector('.help').hidden"))

        b.js("document.getElementById('left').setAttribute('controls', '')")
        self.assertEqual(serious_violations(b.driver), [])


class AppAccessibilityTests(ViewerTestCase):
    def test_loading_is_said_and_axe_finds_nothing_serious_on_the_app(self):
        b = self.browser
        b.open("/")
        b.wait(lambda: b.js("return document.querySelectorAll('.card').length > 0"), "the list")
        self.assertEqual(serious_violations(b.driver), [], "the image list")
        # Slow tiles: the live region says the image is loading, then that it has loaded.
        b.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 900, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            b.open("/#image=pic")
            b.wait_complete()
        finally:
            b.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        b.wait(lambda: b.js("return window.tiler.viewer.a11y.said.includes('Image loaded.')"), "the end of loading said")
        said = b.js("return window.tiler.viewer.a11y.said")
        self.assertIn("Loading the image…", said)
        self.assertEqual(b.js("const v = window.tiler.viewer; return [v.getAttribute('role'), v.getAttribute('aria-label').startsWith('pic: drag')]"),
                         ["application", True])
        self.assertEqual(serious_violations(b.driver), [], "the viewer page")
        time.sleep(0.1)
