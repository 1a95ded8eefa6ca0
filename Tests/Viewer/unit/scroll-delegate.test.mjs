// The delegate sequence and the UIScrollView settings without a browser: what the controller emits for drags, flicks,
// pulls past an edge, pinches, wheel zooms and animations; targetContentOffset; bounces, alwaysBounce, directional
// lock; contentInset in the scroll view's bounds and fit.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScrollView } from '../../../Public/js/scroll-view.js';
import { FLICK, collapsed, drag, finish, setup } from './scroll-support.mjs';

test('a flick: drag, end dragging, decelerate', () => {
  const { controller, log } = setup();
  finish(controller, drag(controller, -12, -3));
  assert.deepEqual(collapsed(log), FLICK);
  assert.equal(controller.decelerating, false);
});

test('a drag that rests before lifting ends without decelerating; a tap sends nothing', () => {
  const { sv, controller, log } = setup();
  finish(controller, drag(controller, -5, 0, { liftAt: 200 }));
  assert.deepEqual(collapsed(log), ['willBeginDragging', 'move', 'willEndDragging', 'didEndDragging(false)']);
  assert.equal(sv.x, 1050); // the touch-down point followed the finger 1:1
  log.length = 0;
  controller.beginPan({ x: 10, y: 10 }, 1000, 12);
  controller.pan({ x: 15, y: 18 }, 1010);
  assert.ok(controller.tracking && !controller.dragging);
  controller.endPan(1020);
  assert.deepEqual(log, []);
  assert.equal(sv.x, 1050);
});

test('a pull past an edge springs back as deceleration; without bounces it holds the edge', () => {
  const { sv, controller, log } = setup();
  controller.setView({ zoomScale: 1, x: 0, y: 700 });
  log.length = 0;
  finish(controller, drag(controller, 20, 0, { liftAt: 200 }));
  assert.deepEqual(collapsed(log), FLICK);
  assert.equal(sv.x + 0, 0);
  controller.bounces = false;
  controller.beginPan({ x: 400, y: 300 }, 0, 4);
  controller.pan({ x: 600, y: 300 }, 10);
  assert.equal(sv.x + 0, 0);
});

test('the delegate moves the rest point through targetContentOffset', () => {
  let seen = null;
  const { sv, controller } = setup({
    onEmit: (name, detail) => {
      if (name !== 'willEndDragging') return;
      seen = { velocity: { ...detail.velocity }, target: { ...detail.targetContentOffset } };
      detail.targetContentOffset.x = 1600;
      detail.targetContentOffset.y = 650;
    },
  });
  finish(controller, drag(controller, -12, 0));
  assert.ok(Math.abs(seen.velocity.x - 1.2) < 1e-9, `points per ms: ${seen.velocity.x}`);
  assert.ok(Math.abs(seen.target.x - (1000 + 120 + 1200 / 1000 * 0.998 / 0.002)) < 1e-6);
  assert.ok(Math.abs(sv.x - 1600) < 1e-9 && Math.abs(sv.y - 650) < 1e-9, `${sv.x}, ${sv.y}`);
});

test('alwaysBounce: a fitted image does not drag unless the axis may bounce', () => {
  const { sv, controller, log } = setup();
  controller.setView(sv.fitView);
  const fit = { ...sv.view, x: sv.x + 0 };
  log.length = 0;
  finish(controller, drag(controller, 0, 15, { liftAt: 200 }));
  assert.deepEqual(log, []);
  assert.deepEqual({ ...sv.view, x: sv.x + 0 }, fit);
  controller.alwaysBounceVertical = true;
  finish(controller, drag(controller, 0, 15, { liftAt: 200 }));
  assert.deepEqual(collapsed(log), FLICK);
  assert.deepEqual({ ...sv.view, x: sv.x + 0 }, fit);
});

test('directional lock keeps a mostly horizontal drag horizontal', () => {
  const { sv, controller } = setup();
  controller.isDirectionalLockEnabled = true;
  finish(controller, drag(controller, -10, 3, { liftAt: 200 }));
  assert.equal(sv.x, 1100);
  assert.equal(sv.y, 700);
  controller.isDirectionalLockEnabled = false;
  finish(controller, drag(controller, -10, 3, { liftAt: 200 }));
  assert.equal(sv.y, 670);
});

test('a pinch and a wheel zoom past the maximum: zooming, bouncing back, didEndZooming at the limit', () => {
  const { sv, controller, log } = setup();
  controller.beginPinch({ x: 300, y: 300 }, { x: 500, y: 300 }, 0);
  controller.pinch({ x: 100, y: 300 }, { x: 700, y: 300 });
  assert.ok(sv.zoomScale > 2 && controller.zooming);
  controller.endPinch(50);
  assert.ok(controller.zoomBouncing);
  finish(controller, 50);
  assert.equal(sv.zoomScale, 2);
  assert.deepEqual(collapsed(log), ['willBeginZooming', 'move', 'didEndZooming']);
  assert.equal(controller.zooming, false);
  log.length = 0;
  for (let i = 0; i < 5; i += 1) controller.zoomAt(1.5, { x: 100, y: 100 });
  controller.endWheelZoom(0);
  finish(controller, 0);
  assert.equal(sv.zoomScale, 2);
  assert.deepEqual(collapsed(log), ['willBeginZooming', 'move', 'didEndZooming']);
});

test('programmatic moves: one didScroll at once, or an animation: a zoom, or a scroll ending in didEndScrollingAnimation', () => {
  const { sv, controller, log } = setup();
  controller.moveTo({ zoomScale: 1, x: -5000, y: 0 }, false, 0);
  assert.deepEqual(log, ['didScroll']);
  assert.equal(sv.x, -5000); // not clamped, as UIKit's contentOffset
  log.length = 0;
  controller.moveTo({ zoomScale: 0.5, x: 100, y: 100 }, true, 0);
  assert.equal(controller.zooming, false); // isZooming is the gestures' flag
  finish(controller, 0);
  assert.deepEqual(collapsed(log), ['willBeginZooming', 'move', 'didEndZooming']);
  log.length = 0;
  controller.moveTo({ zoomScale: 0.5, x: 300, y: 100 }, true, 0);
  finish(controller, 0);
  assert.deepEqual(collapsed(log), ['move', 'didEndScrollingAnimation']);
  log.length = 0;
  controller.moveTo({ zoomScale: 0.5, x: 300, y: 100 }, true, 0);
  assert.deepEqual(log, []);
});

test('contentInset: the fit, the centring and the bounds leave the inset area clear', () => {
  const sv = new ScrollView({ contentSize: { width: 3000, height: 2000 }, viewportSize: { width: 800, height: 600 } });
  sv.setContentInset({ top: 50, bottom: 150 });
  assert.equal(sv.minimumZoomScale, 400 / 2000); // fits 800×400
  assert.equal(sv.view.y, -50);
  assert.equal(sv.view.x, -(800 - 600) / 2);
  sv.setView({ zoomScale: 1, x: 0, y: 0 });
  const b = Object.fromEntries(Object.entries(sv.boundsAt()).map(([k, v]) => [k, v + 0]));
  assert.deepEqual(b, { minX: 0, maxX: 2200, minY: -50, maxY: 2000 + 150 - 600 });
  const z = sv.zoomToRectView({ minX: 1000, minY: 1000, maxX: 1400, maxY: 1200 });
  assert.equal(z.zoomScale, 2); // 400×200 in 800×400
  assert.equal(z.y, 1100 * 2 - 50 - 200); // the rect's centre at the centre of the inner area
});
