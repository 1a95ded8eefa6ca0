"""The viewer over HTTPS: `tiler serve --tls-cert --tls-key` on 127.0.0.1 with a certificate from a test certificate
authority (made by openssl, Tests/Support/certificates.py), in a headless Chromium that trusts that authority and
nothing more: the authority is in the NSS database of a HOME of the test's own (~/.pki/nssdb, where Chromium on Linux
reads the certificates its user added), and certificate checking stays on. A server whose certificate another
authority signed must then fail to load at all.

The page is opened by a name that is not the loopback's (images.test, which Chromium resolves to 127.0.0.1 by
--host-resolver-rules): http://localhost and http://127.0.0.1 are secure contexts too, so only a real name makes
`isSecureContext` say something about TLS."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import PUBLIC, TILER, Browser, World
from viewer_case import ViewerTestCase

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Support"))
from certificates import authority, server_certificate  # noqa: E402

HOST = "images.test"  # .test is reserved (RFC 6761): no real host has it


class TLSServer:
    """`tiler serve ROOT --tls-cert CERT --tls-key KEY` on a free port of 127.0.0.1, with the viewer and an access log
    (stdout, to a file: it says each request's protocol, and that no request came)."""

    def __init__(self, root, folder, name, cert, key):
        self.log_path = os.path.join(folder, f"{name}.access.log")
        self.errors = open(os.path.join(folder, f"{name}.serve.log"), "w")
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [TILER, "serve", root, "--host", "127.0.0.1", "--port", "0", "--public", PUBLIC, "--threads", "1",
                 "--tls-cert", cert, "--tls-key", key, "--access-log"], stdout=log, stderr=self.errors)
        deadline = time.monotonic() + 30
        while not (match := re.search(r"https://127\.0\.0\.1:(\d+)/", self.access_log())):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"tiler serve did not say where it listens; logs in {folder}")
            time.sleep(0.05)
        self.url = f"https://{HOST}:{match.group(1)}"

    def access_log(self):
        with open(self.log_path) as log:
            return log.read()

    def requests(self):
        """(method and target, protocol) of every request logged: `… "GET /path HTTP/2" 200 …`."""
        return re.findall(r'"(\S+ \S+) (HTTP/[\d.]+)"', self.access_log())

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.errors.close()


class TrustingBrowser(Browser):
    """harness.Browser's Chromium (the same arguments) with HOME, and so the NSS database it trusts, in `home`, and
    HOST resolved to 127.0.0.1."""

    def __init__(self, base_url, home, width=1000, height=740):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                         f"--window-size={width},{height}", "--force-device-scale-factor=1", "--disable-gpu",
                         "--disable-extensions", "--no-first-run", "--mute-audio",
                         f"--host-resolver-rules=MAP {HOST} 127.0.0.1"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", env=dict(os.environ, HOME=home))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.base_url = base_url
        self.cdp("Network.enable", {})
        self.cdp("Network.setCacheDisabled", {"cacheDisabled": True})


class TLSViewerTests(ViewerTestCase):
    @classmethod
    def setUpClass(cls):
        world = World.shared()
        cls.folder = os.path.join(world.pyramids.folder, "tls")
        os.makedirs(cls.folder)
        trusted, other = authority(cls.folder, "trusted"), authority(cls.folder, "other")
        home = os.path.join(cls.folder, "home")
        nssdb = os.path.join(home, ".pki", "nssdb")
        os.makedirs(nssdb)
        # -t C,,: a trusted authority for servers' certificates (not for mail or code); the other one is not in.
        for command in (["certutil", "-N", "-d", f"sql:{nssdb}", "--empty-password"],
                        ["certutil", "-A", "-d", f"sql:{nssdb}", "-t", "C,,", "-n", "Tiler test authority", "-i", trusted]):
            subprocess.run(command, check=True, capture_output=True, timeout=30)
        cls.servers = []
        cls.tls_browser = None
        try:
            cls.tls_server = cls.start(world, "trusted", *server_certificate(cls.folder, "images", trusted, [HOST]))
            cls.wrong_server = cls.start(world, "wrong", *server_certificate(cls.folder, "wrong", other, [HOST]))
            cls.tls_browser = TrustingBrowser(cls.tls_server.url, home)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start(cls, world, name, cert, key):
        server = TLSServer(world.pyramids.root, cls.folder, name, cert, key)
        cls.servers.append(server)
        return server

    @classmethod
    def tearDownClass(cls):
        if cls.tls_browser:
            cls.tls_browser.quit()
        for server in cls.servers:
            server.stop()

    def setUp(self):
        super().setUp()
        # The shared world's pyramids and comparisons, with this browser and this server.
        self.browser, self.server = self.tls_browser, self.tls_server
        self.browser.drain()

    def test_the_viewer_over_https_is_a_secure_context_and_fetches_its_tiles_over_http2(self):
        state = self.open_view("pic")
        b = self.browser
        self.assertTrue(b.driver.current_url.startswith(f"https://{HOST}:"), b.driver.current_url)
        self.assertIs(b.js("return window.isSecureContext"), True)
        tiles = b.js("""return performance.getEntriesByType('resource').filter(e => e.name.includes('_files/'))
                            .map(e => [e.name, e.nextHopProtocol])""")
        self.assertTrue(tiles, "no tile in the page's resource timing")
        self.assertEqual([t for t in tiles if t[1] != "h2"], [], "tiles fetched over another protocol than HTTP/2")
        self.assert_matches_source("pic", state)
        # The server saw the same: its tile requests came over HTTP/2.
        logged = [protocol for request, protocol in self.server.requests() if "_files/" in request]
        self.assertTrue(logged)
        self.assertEqual(set(logged), {"HTTP/2"})

    def peak_tile_requests(self):
        """The most tile requests the page had under way at one moment, from its resource timing."""
        spans = self.browser.js("""return performance.getEntriesByType('resource').filter(e => e.name.includes('_files/'))
                                        .map(e => [e.startTime, e.responseEnd])""")
        return max((sum(1 for s, e in spans if s <= start < e) for start, _ in spans), default=0)

    def test_over_http2_the_viewer_keeps_more_tile_requests_in_flight_unless_told(self):
        state = self.open_view("pic")
        self.assertEqual(state["loader"]["protocol"], "h2")
        self.assertEqual(state["loader"]["maxInFlight"], 64)
        self.assertGreater(self.peak_tile_requests(), 6, "no more than HTTP/1.1's six tile requests at once over HTTP/2")
        # ?inflight=N wins over the protocol.
        state = self.open_view("pic", query="?inflight=3")
        self.assertEqual(state["loader"]["maxInFlight"], 3)
        self.assertLessEqual(self.peak_tile_requests(), 3)

    def test_over_plain_http_the_viewer_keeps_six_tile_requests_in_flight(self):
        # The shared world's server and browser: http://127.0.0.1, HTTP/1.1.
        self.browser, self.server = self.world.browser, self.world.server
        self.browser.drain()
        state = self.open_view("pic")
        self.assertEqual(state["loader"]["protocol"], "http/1.1")
        self.assertEqual(state["loader"]["maxInFlight"], 6)
        self.assertLessEqual(self.peak_tile_requests(), 6)

    def test_a_certificate_another_authority_signed_is_refused(self):
        b = self.browser
        b.open_url(self.wrong_server.url + "/#image=pic")
        failures = []

        def refused():
            for entry in b.driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message.get("method") == "Network.loadingFailed":
                    failures.append(message["params"].get("errorText"))
            return "net::ERR_CERT_AUTHORITY_INVALID" in failures

        b.wait(refused, "the page's load to fail on its certificate", timeout=30)
        # Chromium's own error page ("Your connection is not private") then stands instead of the viewer (it commits
        # a moment after the failure is reported).
        b.wait(lambda: b.js("return location.href").startswith("chrome-error://"), "Chromium's error page", timeout=30)
        self.assertIsNone(b.js("return window.tiler || null"), "the viewer ran")
        # Not one request reached the server (the handshake failed first), so no tile was fetched.
        self.assertEqual(self.wrong_server.requests(), [])
        self.assertFalse(b.js("return performance.getEntriesByType('resource').some(e => e.name.includes('_files/'))"))
