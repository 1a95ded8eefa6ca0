// Issue 29's UIScrollView details in the controller, without a browser: zooms from code around the centre and
// reported as zooms, equal limits locking the zoom, the keys obeying isScrollEnabled, two fingers (resting, added to
// a drag, spreading), alwaysBounce without bounces, scroll-to-top.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PINCH_SLOP } from '../../../Public/js/scroll-controller-zoom.js';
import { FLICK, collapsed, drag, finish, setup } from './scroll-support.mjs';

const close = (a, b, tolerance = 1e-9) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));

test('zoomedToView keeps the image point at the anchor, and clamps zoom and offset', () => {
  const { sv } = setup();
  const centre = sv.imagePointAt(sv.centre);
  const view = sv.zoomedToView(0.5, sv.centre);
  assert.equal(view.zoomScale, 0.5);
  const after = sv.imagePointAt(sv.centre, view);
  assert.ok(close(after.x, centre.x) && close(after.y, centre.y), JSON.stringify({ centre, after }));
  assert.equal(sv.zoomedToView(50, sv.centre).zoomScale, 2);
  const fitted = sv.zoomedToView(1e-6, sv.centre);
  const fit = sv.fitView;
  // The fitted axis's two bounds may differ in the last bit: equal up to rounding.
  assert.ok(fitted.zoomScale === fit.zoomScale && close(fitted.x, fit.x, 1e-12) && close(fitted.y, fit.y, 1e-12), JSON.stringify({ fitted, fit }));
});

test('an animated zoom from code: willBeginZooming at once, didEndZooming(atScale) at the end, isZooming false', () => {
  const scales = [];
  const { sv, controller, log } = setup({ onEmit: (name, detail) => name === 'didEndZooming' && scales.push(detail.atScale) });
  controller.zoomBy(2, { x: 400, y: 300 }, 0);
  assert.deepEqual(log, ['willBeginZooming']);
  let t = 0;
  while (controller.step(t)) {
    assert.equal(controller.zooming, false);
    t += 16;
  }
  assert.deepEqual(collapsed(log), ['willBeginZooming', 'move', 'didEndZooming']);
  assert.deepEqual(scales, [2]);
  assert.equal(sv.zoomScale, 2);
  log.length = 0;
  controller.panBy(-100, 0, t);
  finish(controller, t);
  assert.deepEqual(collapsed(log), ['move', 'didEndScrollingAnimation'], 'a key pan is a scrolling animation');
});

test('an animated zoom cut short still ends with didEndZooming, at the scale it reached', () => {
  const scales = [];
  const { sv, controller, log } = setup({ onEmit: (name, detail) => name === 'didEndZooming' && scales.push(detail.atScale) });
  controller.zoomBy(0.5, { x: 400, y: 300 }, 0);
  controller.step(100);
  controller.beginPan({ x: 10, y: 10 }, 120, 12);
  assert.deepEqual(collapsed(log), ['willBeginZooming', 'move', 'didEndZooming']);
  assert.equal(scales[0], sv.zoomScale);
  assert.ok(sv.zoomScale < 1 && sv.zoomScale > 0.5);
});

test('equal zoom limits lock the zoom: no wheel zoom, no pinch, no zoom moments', () => {
  const { sv, controller, log } = setup();
  sv.minimumOverride = 1;
  sv.maximumOverride = 1;
  assert.equal(controller.zoomEnabled, false);
  controller.zoomAt(2, { x: 100, y: 100 });
  controller.endWheelZoom(0);
  controller.beginPan({ x: 300, y: 300 }, 0, 12);
  controller.addFinger({ x: 300, y: 300 }, { x: 500, y: 300 }, 10, 12);
  controller.moveFingers({ x: 200, y: 300 }, { x: 600, y: 300 }, 20);
  controller.liftFinger({ x: 600, y: 300 }, 30, { slop: 12 });
  controller.endPan(40);
  finish(controller, 40);
  assert.equal(sv.zoomScale, 1);
  assert.deepEqual(log.filter((n) => /Zoom/.test(n)), []);
  assert.equal(controller.zooming, false);
});

test('the keys that scroll do nothing without isScrollEnabled', () => {
  const { sv, controller, log } = setup();
  controller.isScrollEnabled = false;
  controller.panBy(100, 100, 0);
  assert.equal(controller.animation, null);
  assert.deepEqual(log, []);
  assert.deepEqual({ x: sv.x, y: sv.y }, { x: 1000, y: 700 });
});

test('two fingers that rest and lift send nothing and never zoom', () => {
  const { controller, log } = setup();
  controller.beginPan({ x: 300, y: 300 }, 0, 12);
  controller.addFinger({ x: 300, y: 300 }, { x: 400, y: 300 }, 5, 12);
  controller.moveFingers({ x: 300 - PINCH_SLOP / 4, y: 300 }, { x: 400 + PINCH_SLOP / 4, y: 300 }, 100);
  assert.equal(controller.zooming, false);
  assert.equal(controller.tracking, true);
  controller.liftFinger({ x: 400, y: 300 }, 600, { slop: 12 });
  controller.endPan(610);
  assert.deepEqual(log, []);
});

test('a finger added to a drag: the drag goes on at the midpoint without a jump, and ends through willEndDragging', () => {
  const { sv, controller, log } = setup();
  controller.beginPan({ x: 400, y: 300 }, 0, 4);
  controller.pan({ x: 380, y: 300 }, 10);
  controller.addFinger({ x: 380, y: 300 }, { x: 480, y: 300 }, 20, 4);
  assert.equal(sv.x, 1020);
  controller.moveFingers({ x: 370, y: 300 }, { x: 470, y: 300 }, 30);
  assert.equal(sv.x, 1030, 'the midpoint moved 10 points: so did the content');
  controller.liftFinger({ x: 470, y: 300 }, 40, { slop: 4 });
  controller.pan({ x: 460, y: 300 }, 50);
  assert.equal(sv.x, 1040, 'the finger left behind drags on from where it is');
  controller.endPan(55);
  finish(controller, 55);
  assert.deepEqual(collapsed(log), FLICK);
});

test('fingers that spread during a drag: willEndDragging, didEndDragging(false), then the pinch', () => {
  const { sv, controller, log } = setup();
  controller.beginPan({ x: 400, y: 300 }, 0, 4);
  controller.pan({ x: 380, y: 300 }, 10);
  controller.addFinger({ x: 380, y: 300 }, { x: 480, y: 300 }, 20, 4);
  controller.moveFingers({ x: 330, y: 300 }, { x: 530, y: 300 }, 30);
  assert.equal(controller.zooming, true);
  assert.equal(sv.zoomScale, 2, 'the spread from where the fingers landed: 100 → 200 points');
  controller.liftFinger({ x: 530, y: 300 }, 40, { slop: 4 });
  controller.endPan(50);
  finish(controller, 50);
  assert.deepEqual(collapsed(log), ['willBeginDragging', 'move', 'willEndDragging', 'didEndDragging(false)', 'willBeginZooming', 'move', 'didEndZooming']);
});

test('with panMinimumTouches 2, lifting one of two fingers ends the drag', () => {
  const { controller, log } = setup();
  controller.addFinger({ x: 300, y: 300 }, { x: 400, y: 300 }, 0, 12);
  for (let i = 1; i <= 5; i += 1) controller.moveFingers({ x: 300, y: 300 - 10 * i }, { x: 400, y: 300 - 10 * i }, 10 * i);
  assert.equal(controller.dragging, true);
  controller.liftFinger({ x: 400, y: 250 }, 300, { slop: 12, continues: false });
  assert.equal(controller.dragging, false);
  assert.equal(controller.gesture, null);
  assert.deepEqual(collapsed(log), ['willBeginDragging', 'move', 'willEndDragging', 'didEndDragging(false)']);
});

test('alwaysBounce without bounces does not drag content that fits', () => {
  const { sv, controller, log } = setup();
  controller.setView(sv.fitView);
  log.length = 0;
  controller.alwaysBounceVertical = true;
  controller.bounces = false;
  finish(controller, drag(controller, 0, 15, { liftAt: 200 }));
  assert.deepEqual(log, []);
  assert.equal(controller.tracking, false);
});

test('scroll to top: an animation to the top inside the inset, x kept, ending with didScrollToTop', () => {
  const { sv, controller, log } = setup();
  sv.setContentInset({ top: 40 });
  controller.setView({ zoomScale: 1, x: 500, y: 900 });
  log.length = 0;
  assert.equal(controller.isAtTop, false);
  assert.equal(controller.scrollToTop(0), true);
  finish(controller, 0);
  assert.deepEqual(collapsed(log), ['move', 'didScrollToTop']);
  assert.deepEqual({ x: sv.x, y: sv.y }, { x: 500, y: -40 });
  assert.equal(controller.isAtTop, true);
  assert.equal(controller.scrollToTop(1000), false, 'already at the top: nothing');
});
