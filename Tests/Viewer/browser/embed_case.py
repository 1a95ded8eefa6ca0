"""The base class of the tests of `<tiler-viewer>` on embed.html (two elements, `left` and `right`, from a plain static
file server): opening the page, recording the delegate moments, and real input through the DevTools protocol (CDP)
— mouse, touch and wheel events carrying their own timestamps, so a loaded machine cannot change what they mean."""

import time

from viewer_case import ViewerTestCase

NAMES = ["didscroll", "willbegindragging", "willenddragging", "didenddragging", "willbegindecelerating", "didenddecelerating",
         "didendscrollinganimation", "willbeginzooming", "didzoom", "didendzooming", "didscrolltotop"]
FLICK = ["willbegindragging", "move", "willenddragging", "didenddragging(true)", "willbegindecelerating", "move", "didenddecelerating"]
ZOOM = ["willbeginzooming", "move", "didendzooming"]


class EmbedTestCase(ViewerTestCase):
    def setUp(self):
        super().setUp()
        self.static = self.world.static

    def open_embed(self):
        """Loads embed.html, waits for both viewers, and records their moments in `window.rec` (and each
        `didEndZooming`'s scale in `window.scales`, each `willEndDragging`'s target in `window.targets`)."""
        b = self.browser
        b.driver.get("about:blank")
        b.drain()
        b.driver.get(self.static.url + "/examples/embed.html")
        b.wait(lambda: b.js("return ['left', 'right'].every(id => { const s = document.getElementById(id).debug; return s && s.complete && s.loaded; })"),
               "both viewers to be complete")
        b.js("""
            window.rec = []; window.scales = []; window.targets = [];
            for (const v of document.querySelectorAll('tiler-viewer'))
              for (const n of arguments[0]) v.addEventListener(n, (e) => {
                window.rec.push(v.id + ':' + n + (n === 'didenddragging' ? '(' + e.detail.willDecelerate + ')' : ''));
                if (n === 'didendzooming') window.scales.push(e.detail.atScale);
                if (n === 'willenddragging') window.targets.push({...e.detail.targetContentOffset});
              });
        """, NAMES)

    def get(self, viewer, expression):
        return self.browser.js(f"const v = document.getElementById('{viewer}'); return {expression};")

    def wait_idle(self, viewer):
        b = self.browser
        return b.wait(lambda: b.js(f"const s = document.getElementById('{viewer}').debug; return s.gestureIdle && s.complete ? s : null"), f"{viewer} to rest")

    def events(self, viewer, collapse=True):
        """The recorded moments of `viewer`, runs of didscroll/didzoom collapsed into one `move` unless told not to."""
        out = []
        for entry in self.browser.js("const r = window.rec; window.rec = []; return r;"):
            who, name = entry.split(":", 1)
            if who != viewer:
                continue
            if collapse and name in ("didscroll", "didzoom"):
                name = "move"
                if out and out[-1] == "move":
                    continue
            out.append(name)
        return out

    def box(self, viewer):
        return self.get(viewer, "(() => { const r = v.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")

    def centre_point(self, viewer):
        """The image point at the centre of the area inside the insets."""
        return self.get(viewer, "v.scrollView.imagePointAt(v.scrollView.centre)")

    def mouse(self, kind, x, y, t, **extra):
        self.browser.cdp("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "timestamp": t, **extra})

    def touch(self, kind, points, t):
        """One CDP touch event: `points` are all the fingers down after it, as (x, y) page points, ids by position."""
        touch_points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]
        self.browser.cdp("Input.dispatchTouchEvent", {"type": kind, "touchPoints": touch_points, "timestamp": t})

    def flick(self, viewer, dx, dy, steps=12, rest=False, start=(0.5, 0.5)):
        """A mouse drag over `viewer` by (dx, dy) per 10 ms step; `rest` pauses 200 ms before lifting (no flick)."""
        left, top, width, height = self.box(viewer)
        x, y = left + width * start[0], top + height * start[1]
        t = time.time()
        self.mouse("mousePressed", x, y, t, buttons=1, clickCount=1)
        for step in range(1, steps + 1):
            self.mouse("mouseMoved", x + dx * step, y + dy * step, t + 0.01 * step, buttons=1)
        if rest:
            time.sleep(0.2)
            t = time.time() - 0.125
        self.mouse("mouseReleased", x + dx * steps, y + dy * steps, t + 0.125, buttons=0, clickCount=1)
