// The interaction model without a browser: drags move the content 1:1, flicks land on ZoomMath's projection,
// pinches and wheel zooms keep the image point under the fingers, zooms animate through zoom-to-rect.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScrollView } from '../../../Public/js/scroll-view.js';
import { ScrollController } from '../../../Public/js/scroll-controller.js';
import { clampedOffset, restingOffset } from '../../../Public/js/zoom-math.js';

/** A 3000×2000 image in an 800×600 viewport, zoomed to 0.5 with the content offset at (300, 100). */
function setup() {
  const sv = new ScrollView({ contentSize: { width: 3000, height: 2000 }, viewportSize: { width: 800, height: 600 } });
  const controller = new ScrollController(sv);
  controller.setView({ zoomScale: 0.5, x: 300, y: 100 });
  return { sv, controller };
}

/** Runs the controller's animation to its end, 16 ms per frame, from time `t`. */
function finish(controller, t) {
  let now = t;
  while (controller.step(now)) {
    now += 16;
    assert.ok(now - t < 20_000, 'the animation ends');
  }
  return now;
}

const close = (a, b, tolerance = 1e-9) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
/** Views equal up to rounding in the last bits (and the sign of zero). */
const sameView = (a, b) => close(a.zoomScale, b.zoomScale, 1e-12) && close(a.x, b.x, 1e-12) && close(a.y, b.y, 1e-12);

test('limits: fit to see everything, two device pixels per image pixel at most', () => {
  const sv = new ScrollView({ contentSize: { width: 3000, height: 2000 }, viewportSize: { width: 800, height: 600 }, devicePixelRatio: 2 });
  assert.equal(sv.minimumZoomScale, 800 / 3000);
  assert.equal(sv.maximumZoomScale, 1);
  assert.ok(sameView(sv.view, { zoomScale: 800 / 3000, x: 0, y: -(600 - 2000 * (800 / 3000)) / 2 }));
  const small = new ScrollView({ contentSize: { width: 100, height: 50 }, viewportSize: { width: 800, height: 600 }, maxDevicePixels: 4 });
  assert.equal(small.minimumZoomScale, 1); // an image smaller than the box is not enlarged
  assert.equal(small.maximumZoomScale, 4);
  small.maximumOverride = 0.5;
  assert.equal(small.maximumZoomScale, 1); // never below the minimum
});

test('a drag moves the content exactly by the drag distance and stops dead after a pause', () => {
  const { sv, controller } = setup();
  controller.beginPan({ x: 400, y: 300 }, 0);
  for (let t = 1; t <= 20; t += 1) controller.pan({ x: 400 - 7 * t, y: 300 + 3 * t }, t * 10);
  assert.deepEqual(sv.view, { zoomScale: 0.5, x: 440, y: 40 });
  controller.pan({ x: 260, y: 360 }, 400); // rest for 200 ms at the end
  controller.endPan(400);
  finish(controller, 400);
  assert.deepEqual(sv.view, { zoomScale: 0.5, x: 440, y: 40 });
});

test('a flick decelerates to ZoomMath\'s resting offset', () => {
  const { sv, controller } = setup();
  controller.beginPan({ x: 400, y: 300 }, 0);
  for (let t = 10; t <= 100; t += 10) controller.pan({ x: 400 - t / 2, y: 300 }, t); // 500 points per second leftwards
  controller.endPan(100);
  const flick = controller.lastFlick;
  assert.ok(close(flick.velocity.x, 500) && flick.velocity.y === 0);
  assert.deepEqual(flick.resting, restingOffset({ x: 350, y: 100 }, flick.velocity, 0.998));
  finish(controller, 100);
  assert.equal(sv.x, flick.resting.x);
  assert.ok(close(sv.x, 350 + 249.5));
  assert.equal(sv.y, 100);
});

test('a flick towards an edge bounces and rests on the edge', () => {
  const { sv, controller } = setup();
  controller.beginPan({ x: 400, y: 300 }, 0);
  for (let t = 10; t <= 50; t += 10) controller.pan({ x: 400 + 40 * (t / 10), y: 300 }, t); // 4000 pt/s rightwards
  controller.endPan(50);
  assert.ok(controller.lastFlick.settled.x === 0);
  let t = 50;
  let minimum = Infinity;
  while (controller.step(t)) {
    minimum = Math.min(minimum, sv.x);
    t += 16;
  }
  assert.ok(minimum < -5, `bounced to ${minimum}`);
  assert.ok(sv.x === 0);
});

test('dragging past an edge resists, and the content springs back on release', () => {
  const { sv, controller } = setup();
  controller.beginPan({ x: 100, y: 300 }, 0);
  controller.pan({ x: 600, y: 300 }, 100); // 500 points right: 300 to the edge, 200 beyond
  assert.ok(sv.x < 0 && sv.x > -200, `rubber band at ${sv.x}`);
  controller.pan({ x: 600, y: 300 }, 300);
  controller.endPan(300);
  finish(controller, 300);
  assert.ok(sv.x === 0);
});

test('a pinch zooms around its midpoint, overshoots the limits with resistance and springs back', () => {
  const { sv, controller } = setup();
  const mid = { x: 300, y: 250 };
  const anchor = sv.imagePointAt(mid);
  controller.beginPinch({ x: 250, y: 250 }, { x: 350, y: 250 }, 0);
  controller.pinch({ x: 200, y: 250 }, { x: 400, y: 250 }); // spread ×2
  assert.ok(close(sv.zoomScale, 1));
  const p = sv.imagePointAt(mid);
  assert.ok(close(p.x, anchor.x) && close(p.y, anchor.y));
  controller.pinch({ x: 0, y: 250 }, { x: 600, y: 250 }); // ×6 would be 3, past the maximum of 2
  assert.ok(sv.zoomScale > 2 && sv.zoomScale < 3, `stretched to ${sv.zoomScale}`);
  controller.endPinch(100);
  finish(controller, 100);
  assert.equal(sv.zoomScale, 2);
  assert.ok(sv.isResting());
});

test('a wheel zoom keeps the image point under the pointer fixed', () => {
  const { sv, controller } = setup();
  const pointer = { x: 123, y: 456 };
  const before = sv.imagePointAt(pointer);
  controller.zoomAt(2 ** 0.25, pointer);
  assert.ok(close(sv.zoomScale, 0.5 * 2 ** 0.25));
  const after = sv.imagePointAt(pointer);
  assert.ok(close(after.x, before.x) && close(after.y, before.y));
  controller.zoomAt(1000, pointer);
  assert.ok(sv.zoomScale > 2 && sv.zoomScale < 2 * Math.exp(0.5), 'stretched past the maximum (bouncesZoom)');
  controller.endWheelZoom(0);
  finish(controller, 0);
  assert.equal(sv.zoomScale, 2);
  controller.bouncesZoom = false;
  controller.zoomAt(1000, pointer);
  assert.equal(sv.zoomScale, 2);
});

test('a double tap zooms in 2× around the point through zoom-to-rect, animated', () => {
  const { sv, controller } = setup();
  const point = { x: 500, y: 200 };
  const before = sv.imagePointAt(point);
  controller.zoomBy(2, point, 0);
  assert.ok(!controller.isIdle);
  let t = 0;
  while (controller.step(t)) {
    const p = sv.imagePointAt(point); // the point stays put on every frame
    assert.ok(close(p.x, before.x, 1e-6) && close(p.y, before.y, 1e-6));
    t += 16;
  }
  assert.ok(close(sv.zoomScale, 1));
  const after = sv.imagePointAt(point);
  assert.ok(close(after.x, before.x) && close(after.y, before.y));
  assert.ok(t >= 300 && t < 400);
});

test('zooming out stops at the fitted, centred image; 0 fits; keys pan within the bounds', () => {
  const { sv, controller } = setup();
  controller.zoomBy(0.1, { x: 10, y: 10 }, 0);
  finish(controller, 0);
  assert.ok(sameView(sv.view, sv.fitView));
  assert.ok(sv.x === 0);
  assert.ok(sv.y < 0); // centred vertically by the inset
  controller.setView({ zoomScale: 1, x: 100, y: 100 });
  controller.panBy(-500, 0, 0);
  finish(controller, 0);
  assert.ok(sv.x === 0);
  controller.fit(0);
  finish(controller, 0);
  assert.ok(sameView(sv.view, sv.fitView));
});

test('setView clamps what is out of range and keeps what is in range bit for bit', () => {
  const { sv, controller } = setup();
  controller.setView({ zoomScale: 0.7, x: 123.45, y: 67.89 });
  assert.deepEqual(sv.view, { zoomScale: 0.7, x: 123.45, y: 67.89 });
  controller.setView({ zoomScale: 50, x: 1e9, y: -1e9 });
  assert.equal(sv.zoomScale, 2);
  assert.ok(sv.x === 6000 - 800 && sv.y === 0);
  assert.deepEqual({ x: sv.x, y: sv.y }, clampedOffset({ x: 1e9, y: -1e9 }, sv.contentSize, 2, sv.viewportSize, sv.insetAt(2)));
});

test('resizing keeps the centre of the view, and a fitted view stays fitted', () => {
  const { sv } = setup();
  const centre = sv.imagePointAt(sv.centre);
  sv.resize({ width: 1000, height: 500 });
  const after = sv.imagePointAt(sv.centre);
  assert.ok(close(after.x, centre.x) && close(after.y, centre.y));
  sv.setView(sv.fitView);
  sv.resize({ width: 400, height: 700 });
  assert.deepEqual(sv.view, sv.fitView);
});
