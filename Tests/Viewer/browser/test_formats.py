"""Tile formats other than JPEG drawn by the viewer: a WebP pyramid (`tiler slice --format webp`) on a server of
its own, so the shared world's catalog stays as the other tests expect."""

import os
import shutil
import tempfile
import urllib.parse

from harness import Server, TILER, reference, mean_difference, run
from PIL import Image
from viewer_case import ViewerTestCase


class FormatTests(ViewerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="tiler-viewer-webp-")
        source = os.path.join(cls.folder, "pic.jpg")
        run([TILER, "sample", source, "--size", "2000x1300", "--seed", "4", "--quality", "95", "--quiet"])
        run([TILER, "slice", source, "-o", os.path.join(cls.folder, "root"), "--name", "wpic", "--format", "webp",
             "--quality", "90", "--quiet"])
        cls.source = Image.open(source).convert("RGB")
        cls.webp_server = Server(os.path.join(cls.folder, "root"), os.path.join(cls.folder, "serve.log"))

    @classmethod
    def tearDownClass(cls):
        cls.webp_server.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_webp_pyramid_is_drawn_from_webp_tiles_and_matches_the_source(self):
        b = self.browser
        b.driver.get("about:blank")
        b.drain()
        b.driver.get(self.webp_server.url + "/#image=wpic")
        state = b.wait_complete()
        b.hide_chrome(True)
        tiles = [r for r in b.network() if "/images/wpic@" in r["url"] and "_files/" in r["url"]]
        self.assertTrue(tiles, "tiles were requested")
        self.assertTrue(all(urllib.parse.urlparse(r["url"]).path.endswith(".webp") for r in tiles), tiles[:3])
        self.assertTrue(all(r["status"] == 200 and not r["failed"] for r in tiles), tiles[:3])
        self.assertTrue(all(r.get("mimeType") == "image/webp" for r in tiles), [r.get("mimeType") for r in tiles[:3]])
        shot = b.screenshot()
        view = state["view"]
        expected = reference(self.source, view, (view["width"], view["height"]), view["devicePixelRatio"])
        difference = mean_difference(shot, expected, (0, 0) + expected.size)
        shifted = reference(self.source, dict(view, x=view["x"] + 16), (view["width"], view["height"]), view["devicePixelRatio"])
        self.assertLess(difference, 10.0, "the canvas differs from the source rendered at that view")
        self.assertGreater(mean_difference(shot, shifted, (0, 0) + expected.size), 2 * difference + 3)
