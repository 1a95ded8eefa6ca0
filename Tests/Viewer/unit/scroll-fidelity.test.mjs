// Issue 29's UIScrollView details in the controller, without a browser: zooms from code around the centre.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './scroll-support.mjs';

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
