"""`<tiler-viewer>`'s smaller UIScrollView details (issue 29, item 10): an empty rect to `scrollRectToVisible` does
nothing, `alwaysBounce…` without `bounces` does not drag content that fits, and `levelOfDetailBias` (CATiledLayer's
`levelsOfDetailBias`) draws a finer or coarser level, loaded from the pyramid."""

from embed_case import FLICK, EmbedTestCase


class ScrollDetailTests(EmbedTestCase):
    def test_scroll_rect_to_visible_with_an_empty_rect_does_nothing(self):
        self.open_embed()
        b = self.browser
        b.js("document.getElementById('left').setView({zoomScale: 1, x: 1000, y: 800})")
        self.events("left")
        for rect in ("{x: 0, y: 0, width: 0, height: 0}", "{x: 10, y: 10, width: 0, height: 50}", "{x: 10, y: 10, width: 50, height: 0}"):
            b.js(f"document.getElementById('left').scrollRectToVisible({rect}, false)")
            self.assertEqual((self.get("left", "v.contentOffset"), self.events("left")), ({"x": 1000, "y": 800}, []), rect)
        b.js("document.getElementById('left').scrollRectToVisible({x: 10, y: 10, width: 1, height: 1}, false)")
        self.assertEqual(self.get("left", "v.contentOffset"), {"x": 10, "y": 10}, "a rect with an area does scroll")

    def test_always_bounce_without_bounces_sends_no_drag_callbacks(self):
        self.open_embed()
        b = self.browser
        before = self.get("right", "v.contentOffset")
        b.js("const v = document.getElementById('right'); v.bounces = false; v.alwaysBounceVertical = true;")
        self.flick("right", 0, 15, rest=True)
        self.wait_idle("right")
        self.assertEqual(self.events("right"), [], "content that fits and may not bounce: no drag at all")
        self.assertEqual(self.get("right", "v.contentOffset"), before)
        b.js("document.getElementById('right').bounces = true")
        self.flick("right", 0, 15, rest=True)
        self.wait_idle("right")
        self.assertEqual(self.events("right"), FLICK, "with bounces, the same drag rubber-bands")

    def test_level_of_detail_bias_draws_a_finer_or_a_coarser_level(self):
        self.open_embed()
        b = self.browser
        level = self.get("right", "v.debug.level")
        self.assertEqual(level, 10, "the fitted 1600 × 1000 image in its box needs level 10 of 0…11")
        for bias, expected in ((1, 11), (2, 11), (-1, 9)):
            b.drain()
            b.js("document.getElementById('right').levelOfDetailBias = arguments[0]", bias)
            state = self.wait_idle("right")
            self.assertEqual((state["level"], state["levelBias"]), (expected, bias), f"bias {bias}")
            self.assertTrue(state["shown"] and all(key.startswith(f"{expected}/") for key in state["shown"]), state["shown"])
            drawn = {f"/right_files/{key}" for key in state["shown"]}
            if bias != 2:  # bias 2 draws level 11, loaded already for bias 1
                fetched = {r["url"].split("/examples/pyramids", 1)[1].rsplit(".", 1)[0]: r["status"] for r in b.network() if "/right_files/" in r["url"]}
                self.assertTrue(drawn <= set(fetched), (drawn, fetched))
                self.assertEqual({fetched[url] for url in drawn}, {200})
        b.js("document.getElementById('right').setAttribute('level-of-detail-bias', '0')")
        self.assertEqual(self.wait_idle("right")["level"], 10)
        with self.assertRaises(Exception):
            b.js("document.getElementById('right').levelOfDetailBias = 0.5")
