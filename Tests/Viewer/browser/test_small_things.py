"""Smaller things users saw (issue 48, item 7), in the app on the shared `tiler serve`: a page that may not upload
says so, in words a person uses, while a file is dragged over it — before the drop; tiles the server did not answer
are "the server cannot be reached" and are asked for again by themselves, waiting longer each time, until they come;
and a viewport report that failed is not sent again for the same view more often than that backoff allows. (The
16 × 16 navigator is in test_slide_panel.py.)"""

import time
import urllib.parse

from viewer_case import ViewerTestCase


class SmallThingsTests(ViewerTestCase):
    def tearDown(self):
        self.browser.cdp("Network.setBlockedURLs", {"urls": []})
        # Requests blocked on purpose are logged by Chromium as failed loads; nothing else may be.
        errors = [e for e in self.browser.console_errors() if "ERR_BLOCKED_BY_CLIENT" not in e["message"]]
        self.assertEqual(errors, [], "console errors")

    def test_a_page_without_a_write_token_says_so_before_the_drop(self):
        b = self.browser
        b.open("/")
        b.wait(lambda: b.js("return document.querySelectorAll('.card').length > 0"), "the list")
        b.js("""const data = new DataTransfer(); data.items.add(new File(['x'], 'photo.jpg', {type: 'image/jpeg'}));
                window.dispatchEvent(new DragEvent('dragenter', {dataTransfer: data, bubbles: true}));""")
        overlay = b.js("const o = document.querySelector('.drop-overlay'); return [o.hidden, o.textContent]")
        self.assertFalse(overlay[0], "the overlay shows while the file is over the page")
        self.assertIn("Uploading needs permission", overlay[1])
        self.assertIn("upload link you were given", overlay[1])
        self.assertNotIn("README", overlay[1])
        b.js("""const data = new DataTransfer(); data.items.add(new File(['x'], 'photo.jpg', {type: 'image/jpeg'}));
                window.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));""")
        note = b.js("return document.querySelector('.upload-status').textContent")
        self.assertNotIn("README", note)
        self.assertIn("Uploading needs permission", note)

    def test_tiles_the_server_did_not_answer_are_retried_by_themselves_with_backoff(self):
        b = self.browser
        self.open_view("pic", hide_chrome=False)
        b.cdp("Network.setBlockedURLs", {"urls": ["*_files/12/*"]})
        b.drain()
        b.js("window.tiler.viewer.setView({zoomScale: 1, x: 1000, y: 600})")
        banner = b.wait(lambda: b.js("const m = document.querySelector('.banner'); return !m.hidden && m.textContent"), "the banner")
        self.assertIn("The server cannot be reached", banner)
        self.assertNotIn("Could not reach the server for tile", banner)
        time.sleep(4.5)
        tiles = [r["url"] for r in b.network() if "_files/12/" in r["url"]]
        per_tile = max(tiles.count(url) for url in set(tiles))
        # Asked at once, after 1 s and after 3 s (then 7 s): three times in 4.5 s at most, never a storm.
        self.assertGreaterEqual(per_tile, 2, "asked again by itself")
        self.assertLessEqual(per_tile, 3, "with backoff")
        b.cdp("Network.setBlockedURLs", {"urls": []})
        # The next retry comes at most 4 s after the unblocking (the waits were 1, 2 and 4 s).
        b.wait(lambda: (s := b.state()) and s["loader"]["failed"] == 0 and s["complete"] and s["loaded"], "the tiles, without Retry", 20)
        b.wait(lambda: b.js("return document.querySelector('.banner').hidden"), "the banner to go")

    def test_a_failed_report_of_an_unchanged_view_is_resent_only_with_backoff(self):
        b = self.browser
        self.open_view("pic", hide_chrome=False)
        b.cdp("Network.setBlockedURLs", {"urls": ["*/visible?*"]})
        b.drain()
        b.js("window.tiler.viewer.setView({zoomScale: 0.5, x: 300, y: 200})")
        time.sleep(6)
        reports = [urllib.parse.parse_qs(urllib.parse.urlparse(r["url"]).query) for r in b.network() if "/visible?" in r["url"]]
        same = [q for q in reports if (q["x"], q["y"], q["zoomScale"]) == (["300"], ["200"], ["0.5"])]
        # Sent at once, then after 1, 2 (and 4) seconds: at most 4 in 6 s (it was about 25).
        self.assertGreaterEqual(len(same), 2)
        self.assertLessEqual(len(same), 4, f"{len(same)} reports of one unchanged view in 6 s")
