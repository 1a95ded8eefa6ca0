// Where the view is going: a gesture extrapolated from its last views, an animation sampled on its own path (a
// flick's end is its target after the delegate changed it), and what is reported for a moving view.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScrollView } from '../../../Public/js/scroll-view.js';
import { ScrollController } from '../../../Public/js/scroll-controller.js';
import { ViewTrend, forecastReports, reportedViewport, viewportOf, LOOKAHEAD_MS } from '../../../Public/js/view-forecast.js';

const close = (a, b, tolerance = 1e-9) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));

test('a drag is extrapolated along its velocity, a zoom in log space; one view is no trend', () => {
  const trend = new ViewTrend();
  trend.add(0, { zoomScale: 1, x: 0, y: 0 });
  assert.equal(trend.extrapolate(LOOKAHEAD_MS), null);
  // 1,000 points per second right, 500 up, the zoom doubling every 100 ms.
  for (let t = 16; t <= 160; t += 16) trend.add(t, { zoomScale: 2 ** (t / 100), x: t, y: -t / 2 });
  const ahead = trend.extrapolate(400);
  assert.ok(close(ahead.x, 160 + 400) && close(ahead.y, -80 - 200), JSON.stringify(ahead));
  assert.ok(close(ahead.zoomScale, 2 ** (560 / 100)));
  assert.ok(close(trend.extrapolate(400, 200).zoomScale, 2 ** (360 / 100)), 'the zoom looks less far ahead');
  // Only the last 100 ms count: a change of direction shows at once.
  for (let t = 176; t <= 300; t += 16) trend.add(t, { zoomScale: 1, x: 160 - (t - 160), y: 0 });
  assert.ok(trend.extrapolate(100).x < trend.samples[trend.samples.length - 1].x);
  trend.reset();
  assert.equal(trend.extrapolate(100), null);
  // One wheel step between two frames 16 ms apart is no trend yet.
  trend.add(0, { zoomScale: 1, x: 0, y: 0 });
  trend.add(16, { zoomScale: 2 ** 0.25, x: 0, y: 0 });
  assert.equal(trend.extrapolate(400), null);
});

test('a moving view at one zoom is reported as the rectangle covering it and its view ahead; at another zoom, the view ahead', () => {
  const now = { x: 100, y: 50, width: 800, height: 600, zoomScale: 0.5, contentScale: 2 };
  assert.deepEqual(reportedViewport(now, { zoomScale: 0.5, x: 400, y: -50 }), { ...now, x: 100, y: -50, width: 1100, height: 700 });
  assert.deepEqual(reportedViewport(now, { zoomScale: 0.5, x: 100, y: 50 }), now, 'at rest, the view');
  assert.deepEqual(reportedViewport(now, { zoomScale: 1, x: 300, y: 200 }), { ...now, zoomScale: 1, x: 300, y: 200 });
  assert.deepEqual(viewportOf({ zoomScale: 2, x: 1, y: 2 }, now), { ...now, zoomScale: 2, x: 1, y: 2 });
});

function setup() {
  const sv = new ScrollView({ contentSize: { width: 30000, height: 20000 }, viewportSize: { width: 800, height: 600 } });
  const controller = new ScrollController(sv);
  controller.setView({ zoomScale: 0.5, x: 3000, y: 1000 });
  return { sv, controller };
}

test("a flick's path is known from its release: the target the delegate set, and every view on the way", () => {
  const { sv, controller } = setup();
  controller.emit = (name, detail) => {
    if (name === 'willEndDragging') detail.targetContentOffset.x = 5000; // the delegate moves the resting point
  };
  assert.equal(controller.animatedViewAt(0), null, 'no animation, no path');
  controller.beginPan({ x: 400, y: 300 }, 0);
  for (let t = 10; t <= 100; t += 10) controller.pan({ x: 400 - 10 * t, y: 300 }, t);
  controller.endPan(100);
  assert.equal(controller.targetView.x, 5000);
  const predicted = [300, 700, 1500].map((t) => controller.animatedViewAt(100 + t));
  assert.ok(close(controller.animatedViewAt(1e9).x, 5000), 'it ends on the target');
  for (const [i, t] of [300, 700, 1500].entries()) {
    controller.step(100 + t);
    assert.ok(close(sv.x, predicted[i].x) && close(sv.y, predicted[i].y), `at ${t} ms`);
  }
});

test('an animated zoom is sampled on its own path, and ends on its target', () => {
  const { sv, controller } = setup();
  controller.zoomBy(2, { x: 400, y: 300 }, 0);
  const end = controller.targetView;
  assert.equal(end.zoomScale, 1);
  const middle = controller.animatedViewAt(160);
  controller.step(160);
  assert.ok(close(sv.zoomScale, middle.zoomScale) && close(sv.x, middle.x));
  assert.deepEqual(controller.animatedViewAt(10_000), { zoomScale: end.zoomScale, x: end.x, y: end.y });
});

test('per frame: a new animation reports its end once; a drag reports the stretch ahead; rest reports the view', () => {
  const { sv, controller } = setup();
  const trend = new ViewTrend();
  const viewport = () => ({ x: sv.x, y: sv.y, width: 800, height: 600, zoomScale: sv.zoomScale, contentScale: 1 });
  let f = forecastReports(controller, trend, viewport(), 0, null);
  assert.deepEqual(f, { target: null, viewport: viewport(), settled: true });
  controller.beginPan({ x: 400, y: 300 }, 0);
  let last = null;
  for (let t = 16; t <= 160; t += 16) {
    controller.pan({ x: 400 - t, y: 300 }, t); // 1,000 points per second to the right (content offset grows)
    last = forecastReports(controller, trend, viewport(), t, null);
  }
  assert.equal(last.settled, false);
  assert.equal(last.target, null);
  assert.equal(last.viewport.x, sv.x);
  assert.ok(close(last.viewport.width, 800 + 400, 1e-6), `covers 400 ms ahead: ${last.viewport.width}`);
  controller.pan({ x: 400 - 176, y: 300 }, 176);
  const waiting = forecastReports(controller, trend, viewport(), 176, null, true);
  assert.deepEqual(waiting.viewport, viewport(), 'tiles of the view itself wait: the view first');
  controller.endPan(160);
  const a = controller.animation;
  f = forecastReports(controller, trend, viewport(), 170, null);
  assert.deepEqual(f.target, { ...viewport(), x: controller.targetView.x, y: controller.targetView.y });
  assert.ok(f.viewport.width > 800, 'the path ahead');
  assert.equal(forecastReports(controller, trend, viewport(), 186, a).target, null, 'once per animation');
});
