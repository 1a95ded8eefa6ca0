// ZoomMath mirrored from Swift: the same examples as Tests/TileGeometryTests/ZoomMathTests.swift.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as Z from '../../../Public/js/zoom-math.js';
import { Random } from './support.mjs';

test('aspect fit fits both sides and fills one', () => {
  const random = new Random(11);
  for (let i = 0; i < 2000; i += 1) {
    const content = { width: random.logUniform(1, 1e6), height: random.logUniform(1, 1e6) };
    const viewport = { width: random.logUniform(1, 1e4), height: random.logUniform(1, 1e4) };
    const z = Z.aspectFitZoom(content, viewport);
    const [w, h] = [content.width * z, content.height * z];
    assert.ok(w <= viewport.width * (1 + 1e-12) && h <= viewport.height * (1 + 1e-12));
    assert.ok(Math.abs(w - viewport.width) <= viewport.width * 1e-12 || Math.abs(h - viewport.height) <= viewport.height * 1e-12);
  }
  assert.equal(Z.aspectFitZoom({ width: 4000, height: 1000 }, { width: 400, height: 400 }), 0.1);
  assert.throws(() => Z.aspectFitZoom({ width: 0, height: 1 }, { width: 1, height: 1 }), RangeError);
});

test('the centring inset centres small content only', () => {
  const content = { width: 1000, height: 500 };
  const viewport = { width: 800, height: 600 };
  assert.deepEqual(Z.centeringInset(content, 0.5, viewport), { top: 175, left: 150, bottom: 175, right: 150 });
  assert.deepEqual(Z.centeringInset(content, 1, viewport), { top: 50, left: 0, bottom: 50, right: 0 });
  assert.deepEqual(Z.centeringInset(content, 3, viewport), { top: 0, left: 0, bottom: 0, right: 0 });
});

test('the clamped offset stays in the scrollable range', () => {
  const content = { width: 1000, height: 500 };
  const viewport = { width: 800, height: 600 };
  const inset = Z.centeringInset(content, 2, viewport);
  const clamp = (x, y) => Z.clampedOffset({ x, y }, content, 2, viewport, inset);
  assert.deepEqual(clamp(100, 200), { x: 100, y: 200 });
  assert.deepEqual(clamp(-50, -1e9), { x: -0, y: -0 }); // Swift's max(-50, -0.0) is -0.0, too
  assert.deepEqual(clamp(5000, 5000), { x: 1200, y: 400 });
  const small = Z.centeringInset(content, 0.5, viewport);
  for (const x of [-1000, 0, 1000]) {
    assert.deepEqual(Z.clampedOffset({ x, y: x }, content, 0.5, viewport, small), { x: -150, y: -175 });
  }
  const far = Z.clampedOffset({ x: 1e9, y: -1e9 }, content, 2, viewport, { top: 10, left: 20, bottom: 30, right: 40 });
  assert.deepEqual(far, { x: 2000 + 40 - 800, y: -10 });
});

test('zoom to a rect fits and centres the rect', () => {
  const content = { width: 10000, height: 8000 };
  const viewport = { width: 800, height: 600 };
  const random = new Random(12);
  for (let i = 0; i < 1000; i += 1) {
    const width = random.logUniform(50, 3000);
    const height = random.logUniform(50, 1900);
    const x = random.uniform(3000, 7000 - width);
    const y = random.uniform(3000, 5000 - height);
    const target = Z.zoomToRect({ minX: x, minY: y, maxX: x + width, maxY: y + height }, content, viewport, 0.01, 100);
    const z = target.zoomScale;
    assert.ok(width * z <= viewport.width * (1 + 1e-12) && height * z <= viewport.height * (1 + 1e-12));
    assert.ok(Math.abs(width * z - viewport.width) < 1e-9 || Math.abs(height * z - viewport.height) < 1e-9);
    assert.ok(Math.abs((target.offset.x + viewport.width / 2) / z - (x + width / 2)) < 1e-6);
    assert.ok(Math.abs((target.offset.y + viewport.height / 2) / z - (y + height / 2)) < 1e-6);
  }
});

test('zoom to a rect clamps the zoom and the offset', () => {
  const content = { width: 1000, height: 1000 };
  const viewport = { width: 500, height: 500 };
  const point = Z.zoomToRect({ minX: 10, minY: 10, maxX: 10, maxY: 10 }, content, viewport, 0.5, 4);
  assert.equal(point.zoomScale, 4);
  assert.ok(point.offset.x === 0 && point.offset.y === 0); // -0 in Swift too
  const everything = Z.zoomToRect({ minX: -5000, minY: 0, maxX: 15000, maxY: 10 }, content, viewport, 0.5, 4);
  assert.equal(everything.zoomScale, 0.5);
  const corner = Z.zoomToRect({ minX: 900, minY: 950, maxX: 1000, maxY: 1000 }, content, viewport, 0.5, 4);
  assert.deepEqual([corner.zoomScale, corner.offset.x, corner.offset.y], [4, 3500, 3500]);
});

test('the flick distance is the sum of the millisecond decay', () => {
  for (const rate of [Z.NORMAL_DECELERATION_RATE, Z.FAST_DECELERATION_RATE]) {
    for (const velocity of [-5000, -1, 0, 300, 2500]) {
      let travelled = 0;
      let speed = velocity / 1000;
      for (let i = 0; i < 100000; i += 1) {
        speed *= rate;
        travelled += speed;
      }
      const distance = Z.decelerationDistance(velocity, rate);
      assert.ok(Math.abs(distance - travelled) <= 1e-9 * Math.max(1, Math.abs(distance)));
      assert.deepEqual(Z.restingOffset({ x: 10, y: -20 }, { x: velocity, y: -velocity }, rate), { x: 10 + distance, y: -20 - distance });
    }
  }
  assert.ok(Math.abs(Z.decelerationDistance(1000, 0.998) - 499) < 1e-9);
  assert.throws(() => Z.decelerationDistance(1, 1), RangeError);
});
