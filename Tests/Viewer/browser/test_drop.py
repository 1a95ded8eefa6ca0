"""Drop and view (issue 27), the page's side, against a real `tiler serve --access` that takes uploads: a page opened
with `#write-token=…` takes a JPEG dropped on it (a synthesised drop of a real file made by `tiler sample`), shows
the upload's and the slicing's progress, opens the image while it is still being sliced, and moves to the final
version without touching the view; refusals (not an image, a name taken, a refused token) are shown in words, a
name taken can be replaced, and Cancel stops an upload. Screenshots go to $TILER_SCREENSHOTS (or the test folder)."""

import base64
import json
import os
import subprocess
import time
import unittest
import urllib.request

from harness import TILER, Server, World, mean_difference, reference
from PIL import Image


class DropTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        world = World.shared()
        cls.browser = world.browser
        cls.folder = os.path.join(world.pyramids.folder, "drop")
        root = os.path.join(cls.folder, "root")
        os.makedirs(root)
        with open(os.path.join(cls.folder, "k1.key"), "w") as key:
            key.write("drop-test-key-0123456789-" * 2)
        cls.policy = os.path.join(cls.folder, "policy.json")
        with open(cls.policy, "w") as policy:
            # Public by default; the one private prefix covers none of the images here. (An all-public policy would do
            # as well, but the server at d7b88b0 drops such a policy, keys and all, and then refuses uploads.)
            policy.write('{"default": "public", "images": {"private/": "private"}, "keys": [{"id": "k1", "file": "k1.key"}]}')
        cls.photo = os.path.join(cls.folder, "Photo du lac.jpg")  # uploaded as Photo_du_lac
        subprocess.run([TILER, "sample", cls.photo, "--size", "6000x4000", "--seed", "7", "--quality", "85", "--quiet"],
                       check=True, capture_output=True, timeout=180)
        cls.small = os.path.join(cls.folder, "small.png")
        subprocess.run([TILER, "sample", cls.small, "--size", "900x600", "--seed", "8", "--quiet"], check=True, capture_output=True, timeout=60)
        cls.token = subprocess.run([TILER, "token", "--access", cls.policy, "--images", "*", "--scope", "write", "--expires", "1h"],
                                   check=True, capture_output=True, text=True).stdout.strip()
        cls.server = Server(root, os.path.join(cls.folder, "serve.log"), extra=["--access", cls.policy])
        cls.shots = os.environ.get("TILER_SCREENSHOTS", cls.folder)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.browser.drain()
        # Refusals a test provokes on purpose: Chromium logs each as a failed load (status → how many).
        self.refusals = {}

    def tearDown(self):
        self.browser.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        # A tile not sliced yet answers 404 (with Retry-After), and a provoked refusal its status: Chromium logs each as
        # a failed load. Nothing else may be logged.
        # A visible-rect report for a provisional version sent as the final pyramid is published answers 404 (the
        # version is withdrawn); the element drops a failed report without a word, but Chromium logs it. So does a
        # provisional descriptor asked for just then (a small image's job can end between the list naming the
        # provisional version and the viewer fetching it): the app reads the list again and opens the final one.
        # Allowed for versions that are not an image's final one.
        finals = {image["version"] for image in self.images().values()}

        def expected(message):
            if "_files/" in message and "status of 404" in message:
                return True
            if "/visible?" in message and "status of 404" in message:
                return not any(f"%40{version}/visible" in message for version in finals)
            if ".dzi " in message and "status of 404" in message:
                return not any(f"@{version}.dzi" in message for version in finals)
            return "/api/images/" in message and any(f"status of {status}" in message for status in self.refusals)
        errors = [e for e in self.browser.console_errors() if not expected(e["message"])]
        self.assertEqual(errors, [], "console errors")

    # Helpers

    def open_page(self, token=None):
        b = self.browser
        b.driver.get("about:blank")
        b.drain()
        b.driver.get(f"{self.server.url}/#write-token={token or self.token}")
        b.wait(lambda: b.js("return !!window.tiler && !!document.querySelector('.picker .subtitle')?.textContent"), "the list")
        b.js("""
            window.panelLog = [];
            const status = document.querySelector('.upload-status');
            new MutationObserver(() => { const t = status.textContent; if (window.panelLog.at(-1) !== t) window.panelLog.push(t); })
              .observe(status, {childList: true, characterData: true, subtree: true});
        """)

    def drop(self, path, name=None, mime="image/jpeg", data=None):
        """Drops a file (the bytes of `path`, or `data`) on the page as a person dragging it from a file manager would."""
        if data is None:
            with open(path, "rb") as f:
                data = f.read()
        self.browser.js("""
            const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
            const file = new File([bytes], arguments[1], {type: arguments[2]});
            const transfer = new DataTransfer();
            transfer.items.add(file);
            const target = document.elementFromPoint(innerWidth / 2, innerHeight / 2) || document.body;
            for (const type of ['dragenter', 'dragover', 'drop'])
              target.dispatchEvent(new DragEvent(type, {dataTransfer: transfer, bubbles: true, cancelable: true, clientX: 400, clientY: 300}));
        """, base64.b64encode(data).decode(), name or os.path.basename(path), mime)

    def panel(self):
        return self.browser.js("""
            const p = document.querySelector('.upload-panel');
            const shown = (s) => { const e = p.querySelector(s); return !!e && !e.hidden; };
            return {hidden: p.hidden, name: p.querySelector('.upload-name').textContent, file: p.querySelector('.upload-file').textContent,
                    status: p.querySelector('.upload-status').textContent, cancel: shown('.upload-cancel'),
                    replace: shown('.upload-replace'), close: shown('.upload-close'), log: window.panelLog};
        """)

    def wait_status(self, pattern, timeout=120):
        return self.browser.wait(lambda: pattern in self.panel()["status"], f"the panel to say {pattern!r} (it says {self.panel()['status']!r})", timeout)

    def images(self):
        with urllib.request.urlopen(self.server.url + "/api/images", timeout=10) as response:
            return {image["name"]: image for image in json.load(response)}

    # Tests

    def test_a_dropped_jpeg_opens_while_it_is_sliced_and_moves_to_its_final_version_keeping_the_view(self):
        b = self.browser
        self.open_page()
        self.assertEqual(b.js("return location.hash"), "", "the token left the address")
        self.assertEqual(b.js("return sessionStorage.getItem('tiler.writeToken')"), self.token)
        self.assertTrue(b.js("const u = document.querySelector('.upload-button'); return !u.hidden && u.offsetParent !== null"), "the Upload button shows")
        dropped = time.monotonic()
        self.drop(self.photo)
        self.assertEqual(self.panel()["name"], "Photo_du_lac", "the name it is uploaded under is shown")
        b.wait(lambda: b.js("return !!(window.tiler.viewer && window.tiler.viewer.scrollView)"), "the image to open", 120)
        opened = time.monotonic() - dropped
        first_src = b.js("return window.tiler.viewer.getAttribute('src')")
        job = b.js("return window.tiler.uploads.current.job")
        self.assertNotEqual(job["state"], "done", f"the image opened before its slicing ended (job: {job})")
        # Zoom to full size near the bottom while it is provisional — the finest level there is written last, so its
        # tiles are not there yet at first; from then on nothing may move the view.
        b.js("window.tiler.viewer.setView({zoomScale: 1, x: 2400, y: 3300})")
        view = b.js("const v = window.tiler.viewer; return {...v.contentOffset, zoomScale: v.zoomScale}")
        b.js("""
            window.dropEvents = [];
            for (const name of ['load', 'error', 'didscroll', 'didzoom', 'willbeginzooming', 'didendzooming'])
              window.tiler.viewer.addEventListener(name, () => window.dropEvents.push(name));
        """)
        b.hide_chrome(False)
        time.sleep(1.5)  # what the provisional version has, drawn (coarser tiles standing in for the missing ones)
        b.screenshot().save(os.path.join(self.shots, "drop-provisional.png"))
        final = b.wait(lambda: b.js("""
            const job = window.tiler.uploads.current.job, v = window.tiler.viewer, s = window.tiler.state;
            return job.state === 'done' && v.getAttribute('src') === job.dzi && s.complete ? job : null;
        """), "the final version, complete on screen", 180)
        self.assertNotEqual(first_src, final["dzi"], "it was first shown from the provisional version")
        after = b.js("const v = window.tiler.viewer; return {...v.contentOffset, zoomScale: v.zoomScale}")
        self.assertEqual(after, view, "the view did not move")
        self.assertEqual(b.js("return window.dropEvents"), [], "no load, no delegate calls from the swap")
        self.assertEqual(b.state()["stats"]["stale"], 0)
        panel = self.panel()
        self.assertTrue(any(line.startswith("Uploading: ") for line in panel["log"]), panel["log"])
        self.assertTrue(any(line.startswith("Slicing:") for line in panel["log"]), panel["log"])
        self.assertIn("Ready", panel["status"])
        # What shows is the photo at that view.
        b.hide_chrome(True)
        state = b.wait_complete()
        size = (state["view"]["width"], state["view"]["height"])
        source = Image.open(self.photo).convert("RGB")
        expected = reference(source, state["view"], size, state["view"]["devicePixelRatio"])
        shot = b.screenshot()
        self.assertLess(mean_difference(shot, expected, (0, 0) + expected.size), 10)
        b.hide_chrome(False)
        b.screenshot().save(os.path.join(self.shots, "drop-final.png"))
        # Tiles that were not there yet were asked for again, each at most about once a second.
        network = [r for r in b.network() if "_files/" in r["url"]]
        misses = {}
        for r in network:
            if r["status"] == 404:
                misses[r["url"]] = misses.get(r["url"], 0) + 1
        elapsed = time.monotonic() - dropped
        self.assertTrue(misses, "some tiles were not there yet at first (else this test shows nothing of them)")
        self.assertTrue(all(count <= elapsed + 1 for count in misses.values()), misses)
        loaded = {r["url"] for r in network if r["status"] == 200}
        shown = set(b.state()["shown"])
        self.assertTrue(shown and all(any(f"_files/{key}." in url for url in loaded) for key in shown), "every tile on screen came")
        entry = self.images()["Photo_du_lac"]
        self.assertIn(entry.get("state", "ready"), ("ready",), "listed as complete")
        print(f"\n  drop: opened {opened:.1f} s after the drop; final after {elapsed:.1f} s; {len(misses)} tiles missed at first", flush=True)

    def test_refusals_are_said_in_words_and_a_taken_name_can_be_replaced(self):
        b = self.browser
        self.refusals = {415, 409}
        self.open_page()
        self.drop(None, "notes.jpg", data=b"these are my notes, not a picture\n" * 40)
        self.wait_status("is not an image this server can read", 60)
        self.assertTrue(self.panel()["close"])
        self.assertNotIn("notes", self.images())
        b.hide_chrome(False)
        b.screenshot().save(os.path.join(self.shots, "drop-refused.png"))
        self.drop(self.small, mime="image/png")
        self.wait_status("Ready", 120)
        self.assertIn("small", self.images())
        self.drop(self.small, mime="image/png")
        self.wait_status("There is already an image named “small”", 60)
        self.assertTrue(self.panel()["replace"])
        b.js("document.querySelector('.upload-replace').click()")
        self.wait_status("Ready", 120)
        self.assertIn("small", self.images())
        # The app shows the replacement, even when the list it read named the old version just before the new one was
        # published (that descriptor is then gone: the app reads the list again instead of showing a problem).
        final = self.images()["small"]["dzi"]
        b.wait(lambda: b.js(
            "const v = window.tiler.viewer, s = window.tiler.state; return Boolean(v && v.getAttribute('src') === arguments[0] && s && s.complete)",
            final), "the replacement's final version on screen", 60)

    def test_a_damaged_image_is_said_in_words_with_the_server_s_reason(self):
        with open(self.photo, "rb") as f:
            damaged = f.read()[:2_000_000]  # a JPEG cut off after 2 MB: its header is fine, its data ends early
        self.open_page()
        self.drop(None, "damaged.jpg", data=damaged)
        self.wait_status("The image could not be sliced: ", 120)
        status = self.panel()["status"]
        self.assertTrue(status.endswith("Nothing was kept.") and len(status) > len("The image could not be sliced: . Nothing was kept."), status)
        self.assertTrue(self.panel()["close"])
        self.assertNotIn("damaged", self.images())
        self.browser.screenshot().save(os.path.join(self.shots, "drop-damaged.png"))
        print(f"\n  damaged: {status}", flush=True)

    def test_a_refused_token_is_said_in_words(self):
        # The documented format signed with a key the server does not have: 401.
        import hashlib
        import hmac
        claims = base64.urlsafe_b64encode(json.dumps({"img": "*", "exp": int(time.time()) + 3600, "scope": "write"}).encode()).rstrip(b"=").decode()
        signed = f"tiler1.k1.{claims}"
        signature = hmac.new(b"not-the-server-key-0123456789-abcdef", signed.encode(), hashlib.sha256).digest()
        self.refusals = {401}
        self.open_page(signed + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode())
        self.drop(self.small, "refused.png", mime="image/png")
        self.wait_status("did not accept this page’s upload key", 60)
        self.assertNotIn("refused", self.images())

    def test_cancel_stops_an_upload_on_its_way(self):
        b = self.browser
        self.open_page()
        # A slow link (about 1 MB/s up): the upload is still on its way when Cancel is pressed.
        b.cdp("Network.emulateNetworkConditions", {"offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 1_000_000})
        self.drop(self.photo, "cancelled.jpg")
        self.wait_status("Uploading: ", 60)
        self.assertTrue(self.panel()["cancel"])
        b.js("document.querySelector('.upload-cancel').click()")
        self.wait_status("Cancelled. Nothing was stored.", 30)
        time.sleep(1)
        self.assertNotIn("cancelled", self.images())

    def test_cancel_of_a_queued_job_asks_the_server_to_cancel_it(self):
        b = self.browser
        self.open_page()
        # Another client's upload keeps the slicer busy (one job at a time), so the page's job waits in the queue.
        with open(self.photo, "rb") as f:
            body = f.read()
        request = urllib.request.Request(f"{self.server.url}/api/images/blocker", data=body, method="PUT",
                                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": "image/jpeg"})
        with urllib.request.urlopen(request, timeout=60) as response:
            self.assertEqual(response.status, 202)
            blocker = json.load(response)
        self.drop(self.small, "waiting.png", mime="image/png")
        self.wait_status("Waiting for the server to start slicing", 60)
        job = b.js("return window.tiler.uploads.current.job")
        b.js("document.querySelector('.upload-cancel').click()")
        self.wait_status("Cancelled. Nothing was kept.", 30)
        with urllib.request.urlopen(f"{self.server.url}/api/jobs/{job['id']}", timeout=10) as response:
            self.assertEqual(json.load(response)["state"], "cancelled")
        self.assertNotIn("waiting", self.images())
        with urllib.request.urlopen(f"{self.server.url}/api/jobs/{blocker['id']}", timeout=10) as response:
            self.assertNotEqual(json.load(response)["state"], "cancelled", "only the page's job was cancelled")


if __name__ == "__main__":
    unittest.main()
