"""The app's bar on a phone (issue 48, item 5), at 390 × 844 points: the back button is an icon with an accessible
name, the title takes the room the other parts leave (a short name is shown whole, beside no free space), nothing
wraps out of its pill, and every control is at least 44 points square. Screenshots go to $TILER_SCREENSHOTS (or the
test folder)."""

import os

from viewer_case import ViewerTestCase


class PhoneBarTests(ViewerTestCase):
    def test_the_phone_bar_at_390_points(self):
        b = self.browser
        b.cdp("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        try:
            self.open_view("pic", hide_chrome=False)
            bar = b.js("""
                const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
                const back = document.querySelector('.bar .back');
                const title = document.querySelector('.bar .title');
                const name = title.querySelector('.name');
                const visible = [...document.querySelectorAll('.bar > *, .bar button')].filter(e => getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0);
                return {
                  back: box(back), backName: back.getAttribute('aria-label'), backText: back.innerText.trim(),
                  backOverflows: back.scrollWidth > back.clientWidth + 1 || back.scrollHeight > back.clientHeight + 1,
                  title: box(title), nameWhole: name.scrollWidth <= name.clientWidth,
                  controls: [...document.querySelectorAll('.bar a, .bar button')].filter(e => e.getBoundingClientRect().width > 0).map(e => [e.getAttribute('aria-label'), box(e)]),
                  parts: visible.filter(e => e.parentElement.classList.contains('bar')).map(box),
                  width: innerWidth,
                };""")
            self.assertEqual(bar["backName"], "All images", "the icon's accessible name")
            self.assertEqual(bar["backText"], "", "an icon alone")
            self.assertFalse(bar["backOverflows"], "nothing wraps out of its pill")
            self.assertTrue(bar["nameWhole"], "the title shows the name whole")
            for label, (left, top, width, height) in bar["controls"]:
                self.assertGreaterEqual(width, 44, label)
                self.assertGreaterEqual(height, 44, label)
            # The title reaches the next part: no free space beside it (only the gaps between parts).
            parts = sorted(bar["parts"])
            title_index = next(i for i, p in enumerate(parts) if p == bar["title"])
            title_right = bar["title"][0] + bar["title"][2]
            self.assertLessEqual(parts[title_index + 1][0] - title_right, 12, "the title uses the room")
            right = max(p[0] + p[2] for p in parts)
            self.assertLessEqual(right, bar["width"], "the bar fits the screen")
            b.screenshot().save(os.path.join(os.environ.get("TILER_SCREENSHOTS", self.pyramids.folder), "phone-bar.png"))
        finally:
            b.cdp("Emulation.clearDeviceMetricsOverride", {})
