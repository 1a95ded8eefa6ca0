"""Private images in the app (issue 48, items 1 and 2) on a `tiler serve --access` server whose images are private by
default: a read token in the link (`?token=` or `#token=`) opens a private image, is kept for the tab and leaves the
address; the embedding page's sign-in answers `tiler:needtoken`; a token holder is told "no access" apart from "no
such image", someone without one neither; and a token pasted into an open tab's fragment (read or write) is taken
there and then. Screenshots go to $TILER_SCREENSHOTS (or the test folder)."""

import os
import shutil
import subprocess
import unittest

from harness import TILER, Server, World


class ReadTokenTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        world = World.shared()
        cls.browser = world.browser
        cls.folder = os.path.join(world.pyramids.folder, "read-token")
        root = os.path.join(cls.folder, "root")
        for folder in ("secret", "other"):
            os.makedirs(os.path.join(root, folder))
            shutil.copy(os.path.join(world.pyramids.root, "pic.dzi"), os.path.join(root, folder, "pic.dzi"))
            shutil.copytree(os.path.join(world.pyramids.root, "pic_files"), os.path.join(root, folder, "pic_files"))
        with open(os.path.join(cls.folder, "k1.key"), "w") as key:
            key.write("read-token-test-key-" * 3)
        cls.policy = os.path.join(cls.folder, "policy.json")
        with open(cls.policy, "w") as policy:
            policy.write('{"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}')
        cls.server = Server(root, os.path.join(cls.folder, "serve.log"), extra=["--access", cls.policy])
        cls.shots = os.environ.get("TILER_SCREENSHOTS", cls.folder)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.browser.drain()

    def tearDown(self):
        # Refusals the tests provoke (a private descriptor or the list without a token, a token that does not grant
        # an image) are logged by Chromium as failed loads; nothing else may be.
        errors = [e for e in self.browser.console_errors()
                  if not any(f"status of {status}" in e["message"] for status in (401, 403, 404))]
        self.assertEqual(errors, [], "console errors")
        self.browser.js("sessionStorage.clear()")

    def token(self, images="secret/*", scope="read"):
        return subprocess.run([TILER, "token", "--access", self.policy, "--images", images, "--scope", scope, "--expires", "1h"],
                              capture_output=True, text=True, check=True).stdout.strip()

    def open_app(self, path):
        b = self.browser
        b.driver.get("about:blank")
        b.drain()
        b.driver.get(self.server.url + path)

    def problem(self):
        b = self.browser
        return b.wait(lambda: b.js("const p = document.querySelector('.error-page'); return p ? [p.dataset.access ?? '', p.querySelector('p').textContent] : null"),
                      "a message")

    def test_a_token_in_the_link_opens_a_private_image_and_leaves_the_address(self):
        b = self.browser
        token = self.token()
        for path in (f"/?token={token}#image=secret/pic", f"/#token={token}&image=secret/pic"):
            self.open_app(path)
            state = b.wait_complete()
            self.assertEqual(state["image"], "pic")
            self.assertEqual(state["loader"]["failed"], 0)
            href = b.js("return location.href")
            self.assertNotIn("token", href, "the token left the address")
            self.assertTrue(href.endswith("#image=secret%2Fpic") or "#image=secret" in href, href)
            self.assertEqual(b.js("return sessionStorage.getItem('tiler.readToken')"), token, "kept for the tab")
        b.screenshot().save(os.path.join(self.shots, "private-from-link.png"))
        # Kept for the tab: a reload of the clean address still opens it.
        b.driver.refresh()
        self.assertEqual(b.wait_complete()["image"], "pic")
        self.assertIn("secret/pic", b.js("return [...document.querySelectorAll('.bar .name')].map(n => n.textContent).join()"))

    def test_a_token_holder_is_told_no_access_apart_from_no_such_image(self):
        token = self.token()
        self.open_app(f"/#token={token}&image=other/pic")
        kind, text = self.problem()
        self.assertEqual(kind, "denied")
        self.assertIn("does not include", text)
        self.assertNotIn("There is no image", text)
        self.open_app("/#image=secret/nope")  # the token is kept for the tab
        kind, text = self.problem()
        self.assertEqual((kind, text), ("", "There is no image named “secret/nope” on this server."))
        # Without a token, a private image and a missing name read the same: nothing is revealed.
        self.browser.js("sessionStorage.clear()")
        self.open_app("/#image=other/pic")
        kind, private = self.problem()
        self.assertEqual(kind, "missing")
        self.open_app("/#image=other/nope")
        kind, missing = self.problem()
        self.assertEqual(private.replace("other/pic", "X"), missing.replace("other/nope", "X"))
        self.assertIn("private, or there is no image", private)

    def expired_token(self):
        # The documented format, minted with an expiry in the past (tiler token only mints future ones).
        import base64, hashlib, hmac, json
        claims = base64.urlsafe_b64encode(json.dumps({"img": "secret/*", "exp": 1000, "scope": "read"}).encode()).rstrip(b"=").decode()
        signed = f"tiler1.k1.{claims}"
        signature = hmac.new(("read-token-test-key-" * 3).encode(), signed.encode(), hashlib.sha256).digest()
        return signed + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()

    def test_a_spent_token_says_access_ran_out_and_asks_the_sign_in_again(self):
        b = self.browser
        script = b.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.asked = [];
            window.addEventListener('tiler:needtoken', (e) => window.asked.push([e.detail.image, e.detail.reason]));"""})
        try:
            self.open_app(f"/#token={self.expired_token()}&image=secret/pic")
            kind, text = self.problem()
            self.assertEqual(kind, "expired")
            self.assertIn("Your access has run out", text)
            self.assertEqual(b.js("return window.asked"), [["secret/pic", "expired"]])
            self.assertEqual(b.js("return sessionStorage.getItem('tiler.readToken')"), None, "the spent token is forgotten")
            # The public list still shows (none here): the refused token does not break the page.
            b.js("location.hash = ''")
            b.wait(lambda: b.js("return document.querySelector('.subtitle')?.textContent === '0 images'"), "the public list")
        finally:
            b.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})

    def test_the_embedding_pages_sign_in_answers_needtoken(self):
        b = self.browser
        token = self.token()
        script = b.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.asked = [];
            window.addEventListener('tiler:needtoken', (e) => {
              window.asked.push([e.detail.image, e.detail.reason]);
              e.detail.respondWith(new Promise((resolve) => setTimeout(() => resolve(%r), 50)));
            });""" % token})
        try:
            self.open_app("/#image=secret/pic")
            state = b.wait_complete()
            self.assertEqual(state["image"], "pic")
            self.assertEqual(b.js("return window.asked"), [["secret/pic", "missing"]])
            self.assertEqual(b.js("return window.tiler.readToken"), token)
        finally:
            b.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})

    def test_tokens_pasted_into_the_fragment_of_an_open_tab_are_taken(self):
        b = self.browser
        self.open_app("/")
        b.wait(lambda: b.js("return document.querySelector('.subtitle')?.textContent === '0 images'"), "the empty public list")
        write = self.token("*", "write")
        b.js("location.hash = arguments[0]", f"#write-token={write}")
        b.wait(lambda: "write-token" not in b.js("return location.href"), "the write token to leave the address")
        self.assertEqual(b.js("return [window.tiler.writeToken, sessionStorage.getItem('tiler.writeToken')]"), [write, write])
        self.assertFalse(b.js("return document.querySelector('.upload-button').hidden"), "the Upload button shows")
        read = self.token()
        b.js("location.hash = arguments[0]", f"#token={read}&image=secret/pic")
        state = b.wait_complete()
        self.assertEqual(state["image"], "pic")
        self.assertNotIn("token", b.js("return location.href"))
        self.assertEqual(b.js("return sessionStorage.getItem('tiler.readToken')"), read)
        b.js("history.back()")
        b.wait(lambda: b.js("return !window.tiler.viewer"), "the list again")
        self.assertNotIn("token", b.js("return location.href"), "no history entry kept a token")


if __name__ == "__main__":
    unittest.main()
