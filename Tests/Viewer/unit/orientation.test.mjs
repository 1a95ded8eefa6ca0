// The element turned and mirrored (Public/js/orientation.js): points and rectangles between the image as stored and as
// shown, the canvas matrix, and the stored view of a shown one — for every quarter turn, flipped or not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalRotation, orientationMatrix, rectToShown, rectToStored, shownSize, storedView, toShown, toStored } from '../../../Public/js/orientation.js';

const size = { width: 300, height: 200 };
const all = [0, 90, 180, 270].flatMap((rotation) => [false, true].map((flipped) => ({ rotation, flipped })));

test('rotations are quarter turns, modulo 360', () => {
  assert.deepEqual([0, 90, -90, 450, 720].map(normalRotation), [0, 90, 270, 90, 0]);
  assert.throws(() => normalRotation(45), RangeError);
});

test('a quarter turn clockwise puts the top-left corner at the top right', () => {
  const o = { rotation: 90, flipped: false };
  assert.deepEqual(shownSize(size, o), { width: 200, height: 300 });
  assert.deepEqual(toShown({ x: 0, y: 0 }, o, size), { x: 200, y: 0 });
  assert.deepEqual(toShown({ x: 300, y: 0 }, o, size), { x: 200, y: 300 });
  assert.deepEqual(toShown({ x: 0, y: 0 }, { rotation: 0, flipped: true }, size), { x: 300, y: 0 });
});

test('every orientation maps the box onto the shown box and back', () => {
  for (const o of all) {
    const shown = shownSize(size, o);
    const [a, b, c, d, e, f] = orientationMatrix(o, size.width, size.height);
    for (const p of [{ x: 0, y: 0 }, { x: 300, y: 200 }, { x: 17, y: 123 }]) {
      const q = toShown(p, o, size);
      assert.deepEqual(q, { x: a * p.x + c * p.y + e, y: b * p.x + d * p.y + f });
      assert.ok(q.x >= 0 && q.x <= shown.width && q.y >= 0 && q.y <= shown.height, JSON.stringify({ o, p, q }));
      assert.deepEqual(toStored(q, o, size), p);
    }
    const r = { x: 10, y: 20, width: 30, height: 40 };
    const s = rectToShown(r, o, size);
    const back = rectToStored({ minX: s.x, minY: s.y, maxX: s.x + s.width, maxY: s.y + s.height }, o, size);
    assert.deepEqual(back, { minX: 10, minY: 20, maxX: 40, maxY: 60 });
  }
});

test("the stored view of a turned one covers the same image pixels, its sides swapped on a quarter turn", () => {
  const sv = { x: 40, y: 60, zoomScale: 0.5, devicePixelRatio: 2, viewportSize: { width: 80, height: 50 } };
  assert.equal(storedView(sv, { rotation: 0, flipped: false }, size), sv, 'upright: the scroll view itself');
  const v = storedView(sv, { rotation: 90, flipped: false }, size);
  assert.deepEqual(v.viewportSize, { width: 50, height: 80 });
  // Shown x runs along the stored image upwards from its bottom: stored y = height − shown x.
  assert.deepEqual(v.viewportImageRect, { minX: 120, minY: 200 - 240, maxX: 220, maxY: 200 - 80 });
  assert.deepEqual([v.x, v.y, v.zoomScale, v.devicePixelRatio], [60, -20, 0.5, 2]);
});
