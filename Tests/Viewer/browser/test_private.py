"""`<tiler-viewer>` on a private image of a `tiler serve --access` server: the `token` property is sent as the bearer
on the descriptor and viewport reports, tiles are fetched by their signed URLs alone, a refused token fires
`tokenexpired` once, and a fresh token set afterwards opens the image or keeps the view it has."""

import os
import shutil
import subprocess
import unittest

from harness import TILER, Server, World


class PrivateViewerTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        world = World.shared()
        cls.browser = world.browser
        cls.folder = os.path.join(world.pyramids.folder, "private")
        root = os.path.join(cls.folder, "root")
        os.makedirs(os.path.join(root, "secret"))
        shutil.copy(os.path.join(world.pyramids.root, "pic.dzi"), os.path.join(root, "secret", "pic.dzi"))
        shutil.copytree(os.path.join(world.pyramids.root, "pic_files"), os.path.join(root, "secret", "pic_files"))
        with open(os.path.join(cls.folder, "k1.key"), "w") as key:
            key.write("browser-test-key-" * 3)
        cls.policy = os.path.join(cls.folder, "policy.json")
        with open(cls.policy, "w") as policy:
            policy.write('{"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}')
        cls.server = Server(root, os.path.join(cls.folder, "serve.log"), extra=["--access", cls.policy])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def token(self, expires="1h"):
        result = subprocess.run([TILER, "token", "--access", self.policy, "--images", "secret/*", "--expires", expires],
                                capture_output=True, text=True, check=True)
        return result.stdout.strip()

    def expired_token(self):
        # The documented format, minted with an expiry in the past (tiler token only mints future ones).
        import base64, hashlib, hmac, json
        claims = base64.urlsafe_b64encode(json.dumps({"img": "secret/*", "exp": 1000, "scope": "read"}).encode()).rstrip(b"=").decode()
        signed = f"tiler1.k1.{claims}"
        signature = hmac.new(("browser-test-key-" * 3).encode(), signed.encode(), hashlib.sha256).digest()
        return signed + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()

    def open_viewer(self, token):
        """A page of the private server with one element whose token is set before it connects."""
        b = self.browser
        b.driver.get(self.server.url + "/healthz")
        b.drain()
        b.js("""
            window.events = [];
            const done = arguments[1];
            import('/js/tiler-viewer.js').then(() => {
              const v = document.createElement('tiler-viewer');
              v.id = 'v';
              v.style.cssText = 'display:block;width:600px;height:400px';
              v.token = arguments[0];
              v.src = '/images/secret/pic.dzi';
              for (const name of ['load', 'error', 'tokenexpired']) v.addEventListener(name, () => window.events.push(name));
              document.body.append(v);
            });
        """, token)

    def events(self):
        return self.browser.js("return window.events")

    def wait_for(self, name, count=1):
        self.browser.wait(lambda: self.events().count(name) >= count, f"{count} {name} event(s)")

    def test_a_token_opens_a_private_image_whose_tiles_come_by_signed_urls(self):
        self.open_viewer(self.token())
        self.wait_for("load")
        b = self.browser
        b.wait(lambda: b.js("const v = document.getElementById('v'); return v.cache && v.cache.size > 0"), "tiles in the cache")
        seen = []

        def saw(predicate):
            seen.extend(b.network())
            return any(predicate(r) for r in seen)

        b.js("document.getElementById('v').zoomScale = 0.5")
        b.wait(lambda: saw(lambda r: "/visible?" in r["url"] and r["status"] == 200), "a viewport report answered 200")
        b.wait(lambda: saw(lambda r: "_files/" in r["url"]), "tile requests")
        requests = seen
        tiles = [r for r in requests if "_files/" in r["url"]]
        self.assertTrue(tiles)
        self.assertTrue(all("sig=" in r["url"] and "token=" not in r["url"] for r in tiles), tiles[:3])
        self.assertEqual([r for r in tiles if r["status"] not in (200, None)], [])
        self.assertNotIn("tokenexpired", self.events())

    def test_a_refused_token_fires_tokenexpired_and_a_fresh_one_opens_the_image(self):
        self.open_viewer(self.expired_token())
        self.wait_for("tokenexpired")
        self.wait_for("error")
        self.assertNotIn("load", self.events())
        self.browser.js("document.getElementById('v').token = arguments[0]", self.token())
        self.wait_for("load")
        self.assertEqual(self.events().count("tokenexpired"), 1)

    def test_a_token_refused_later_keeps_the_view(self):
        self.open_viewer(self.token())
        self.wait_for("load")
        b = self.browser
        b.js("const v = document.getElementById('v'); v.zoomScale = 0.4; v.setContentOffset({x: 300, y: 200}, false)")
        view = b.js("const v = document.getElementById('v'); return [v.zoomScale, v.contentOffset]")
        b.js("document.getElementById('v').token = arguments[0]", self.expired_token())
        self.wait_for("tokenexpired")
        b.js("document.getElementById('v').token = arguments[0]", self.token())
        b.wait(lambda: b.js("return !document.getElementById('v').access.refreshing"), "the refresh to end")
        self.assertEqual(b.js("const v = document.getElementById('v'); return [v.zoomScale, v.contentOffset]"), view)
        self.assertEqual(self.events().count("load"), 1, "the image was not reopened")
        self.assertEqual(self.events().count("tokenexpired"), 1)
