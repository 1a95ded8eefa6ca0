"""`<tiler-viewer>.replaceSource` on the shared `tiler serve`: moving an open image to another version of the same
geometry (here the same picture sliced again at another JPEG quality, as a final pyramid follows a provisional one)
keeps the view exactly, fires nothing, keeps every tile on screen until its replacement arrives (checked on a
screenshot taken while the new tiles are held back), and ends showing only the new version's tiles; another
geometry reopens as `src` does."""

import os
import shutil
import subprocess

from harness import TILER, Server, World, api, mean_difference
from viewer_case import ViewerTestCase


class SourceSwapTests(ViewerTestCase):
    @classmethod
    def setUpClass(cls):
        world = World.shared()
        # A server of its own (the shared one's list must stay as it is): pic and edges as sliced for all tests, and
        # pic sliced again at quality 40 as pic-again — the same geometry, other tiles.
        folder = os.path.join(world.pyramids.folder, "swap")
        root = os.path.join(folder, "root")
        shutil.copytree(world.pyramids.root, root)
        source = os.path.join(world.pyramids.folder, "pic.jpg")
        subprocess.run([TILER, "slice", source, "-o", root, "--name", "pic-again", "--quality", "40", "--quiet"],
                       check=True, capture_output=True, timeout=120)
        cls.swap_server = Server(root, os.path.join(folder, "serve.log"))

    @classmethod
    def tearDownClass(cls):
        cls.swap_server.stop()

    def setUp(self):
        super().setUp()
        self.server = self.swap_server
        self.browser.base_url = self.swap_server.url
        self.addCleanup(setattr, self.browser, "base_url", self.world.server.url)

    def entry(self, name):
        return next(image for image in api(self.server, "/api/images") if image["name"] == name)

    def record_events(self):
        self.browser.js("""
            window.swapEvents = [];
            for (const name of ['load', 'error', 'didscroll', 'didzoom', 'willbeginzooming', 'didendzooming', 'willbegindragging'])
              window.tiler.viewer.addEventListener(name, () => window.swapEvents.push(name));
        """)

    def test_replacing_the_source_keeps_the_view_and_every_tile_until_its_replacement(self):
        b = self.browser
        view = {"zoomScale": 0.5, "x": 300, "y": 200}
        state = self.open_view("pic", view)
        again = self.entry("pic-again")
        before_view = state["view"]
        self.record_events()
        shot_before = b.screenshot()
        b.drain()
        # New tiles are held back (latency) so that the screenshot below shows what stands in for them.
        b.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            kept = b.driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                window.tiler.viewer.replaceSource(arguments[0]).then(done, (e) => done('rejected: ' + e.message));
            """, again["dzi"])
            self.assertIs(kept, True, "the same geometry: the view is kept")
            # The next frame draws the old tiles as stale stand-ins (the new ones are 1.5 s away).
            b.wait(lambda: b.state()["stats"]["stale"] > 0, "the old tiles drawn as stale", 1.0)
            shot_during = b.screenshot()
        finally:
            b.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.assertLess(mean_difference(shot_before, shot_during), 1.0, "nothing blank or moved while the new tiles load")
        state = b.wait_complete()
        self.assertEqual(state["stats"]["stale"], 0)
        for key in ("x", "y", "zoomScale"):
            self.assertEqual(state["view"][key], before_view[key], key)
        self.assertEqual(b.js("return window.swapEvents"), [], "no load, no delegate calls")
        self.assertEqual(b.js("return window.tiler.viewer.getAttribute('src')"), again["dzi"])
        tiles = [r for r in b.network() if "_files/" in r["url"]]
        self.assertTrue(tiles, "the new version's tiles were fetched")
        self.assertTrue(all("/pic-again@" in r["url"] for r in tiles), [r["url"] for r in tiles if "/pic-again@" not in r["url"]][:3])
        self.assertTrue(all(r["status"] == 200 for r in tiles if not r["canceled"]))
        shot_after = b.screenshot()
        # The quality-40 tiles are the same picture: close to the old ones, yet not identical (the swap happened).
        self.assertGreater(mean_difference(shot_before, shot_after), 0.2)
        self.assertLess(mean_difference(shot_before, shot_after), 8)
        b.hide_chrome(False)
        b.screenshot().save(os.path.join(os.environ.get("TILER_SCREENSHOTS", self.pyramids.folder), "source-swap.png"))

    def test_another_geometry_reopens_like_src(self):
        b = self.browser
        self.open_view("pic", {"zoomScale": 0.5, "x": 300, "y": 200})
        self.record_events()
        kept = b.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            window.tiler.viewer.replaceSource(arguments[0]).then(done, (e) => done('rejected: ' + e.message));
        """, self.entry("edges")["dzi"])
        self.assertIs(kept, False)
        b.wait(lambda: "load" in b.js("return window.swapEvents"), "load")
        state = b.wait_complete()
        self.assertEqual(state["image"], "edges", "opened anew (the app's load handler then applies its view)")
        self.assertEqual(b.js("return window.tiler.viewer.getAttribute('src')"), self.entry("edges")["dzi"])

    def test_a_descriptor_that_fails_leaves_the_image_as_it_was(self):
        b = self.browser
        state = self.open_view("pic", {"zoomScale": 0.5, "x": 300, "y": 200})
        self.record_events()
        answer = b.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            window.tiler.viewer.replaceSource('/images/no-such-image.dzi').then(done, (e) => done('rejected: ' + e.message));
        """)
        self.assertTrue(str(answer).startswith("rejected: ") and "404" in answer, answer)
        after = b.wait_complete()
        self.assertEqual(after["view"], state["view"])
        self.assertEqual(after["image"], "pic")
        self.assertEqual(b.js("return window.swapEvents"), [])
        self.expect_console_errors = True  # Chromium logs the refused descriptor (404) itself.
