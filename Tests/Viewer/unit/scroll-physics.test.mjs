// Rubber band, deceleration, spring and velocity tracking: UIScrollView's numbers and their invariants.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AxisMotion, Deceleration, Spring, VelocityTracker, inverseRubberBand, inverseRubberBandClamp, rubberBand, rubberBandClamp,
} from '../../../Public/js/scroll-physics.js';
import { decelerationDistance, restingOffset } from '../../../Public/js/zoom-math.js';

test('the rubber band resists more the further it is pulled and never reaches the viewport size', () => {
  assert.equal(rubberBand(0, 800), 0);
  let previous = 0;
  for (const x of [1, 10, 100, 1000, 1e5, 1e9]) {
    const y = rubberBand(x, 800);
    assert.ok(y > previous && y < x && y < 800, `${x} → ${y}`);
    assert.equal(rubberBand(-x, 800), -y);
    previous = y;
  }
  // UIScrollView's formula: (1 − 1/(x·0.55/d + 1))·d.
  assert.ok(Math.abs(rubberBand(100, 800) - (1 - 1 / ((100 * 0.55) / 800 + 1)) * 800) < 1e-12);
  for (const x of [-500, -3, 0.5, 42, 900]) assert.ok(Math.abs(inverseRubberBand(rubberBand(x, 600), 600) - x) < 1e-9);
});

test('rubber-band clamping leaves the range alone and bends what lies outside', () => {
  assert.equal(rubberBandClamp(50, 0, 100, 400), 50);
  assert.ok(rubberBandClamp(-40, 0, 100, 400) > -40 && rubberBandClamp(-40, 0, 100, 400) < 0);
  assert.ok(rubberBandClamp(160, 0, 100, 400) > 100 && rubberBandClamp(160, 0, 100, 400) < 160);
  for (const x of [-300, -1, 0, 37, 100, 130, 2000]) {
    assert.ok(Math.abs(inverseRubberBandClamp(rubberBandClamp(x, 0, 100, 400), 0, 100, 400) - x) < 1e-9);
  }
});

test('a flick decelerates by the rate each millisecond and rests exactly at ZoomMath\'s projection', () => {
  for (const velocity of [-4000, -250, 300, 2500]) {
    const d = new Deceleration(100, velocity, 0.998);
    assert.equal(d.resting, restingOffset({ x: 100, y: 0 }, { x: velocity, y: 0 }, 0.998).x);
    // Millisecond by millisecond, as UIScrollView: v ← v·r; x ← x + v/1000.
    let x = 100;
    let v = velocity;
    for (let t = 1; t <= 400; t += 1) {
      v *= 0.998;
      x += v / 1000;
      if (t % 100 === 0) assert.ok(Math.abs(d.positionAt(t) - x) < 1e-9 * Math.abs(velocity));
    }
    assert.ok(Math.abs(d.velocityAt(0) - velocity) < Math.abs(velocity) * 0.002);
    assert.equal(d.positionAt(d.duration), d.resting);
    assert.ok(Math.abs(d.positionAt(d.duration - 1) - d.resting) < 0.11);
  }
  assert.equal(new Deceleration(5, 0).duration, 0);
});

test('a flick that reaches an edge bounces on it and settles there', () => {
  const motion = new AxisMotion({ position: 900, velocity: 3000, min: 0, max: 1000 });
  assert.ok(900 + decelerationDistance(3000, 0.998) > 1000);
  assert.equal(motion.resting, 1000);
  let overshoot = 0;
  let t = 0;
  let sample;
  do {
    sample = motion.sample(t);
    overshoot = Math.max(overshoot, sample.position - 1000);
    t += 16;
  } while (!sample.done && t < 5000);
  assert.ok(sample.done && sample.position === 1000, `ended at ${sample.position} after ${t} ms`);
  assert.ok(overshoot > 5 && overshoot < 200, `overshoot ${overshoot}`);
  assert.ok(t < 1500, `a bounce takes ${t} ms`);
});

test('released past an edge, the content springs back without flying off', () => {
  const motion = new AxisMotion({ position: -80, velocity: 0, min: 0, max: 500 });
  assert.equal(motion.resting, 0);
  const positions = [];
  for (let t = 0; t <= 1000; t += 20) positions.push(motion.sample(t).position);
  assert.ok(positions.every((p, i) => i === 0 || p >= positions[i - 1] - 1e-9), 'monotonic return');
  assert.ok(positions.every((p) => p <= 0));
  assert.equal(motion.sample(2000).position, 0);
  assert.ok(motion.sample(2000).done);
});

test('a flick inside the range stops at its projected point', () => {
  const motion = new AxisMotion({ position: 200, velocity: -300, min: 0, max: 1000 });
  assert.equal(motion.resting, restingOffset({ x: 200, y: 0 }, { x: -300, y: 0 }, 0.998).x);
  const end = motion.sample(60_000);
  assert.ok(end.done);
  assert.equal(end.position, motion.resting);
});

test('the spring is critically damped: it never crosses its target from a standing start', () => {
  const spring = new Spring(50, 0, 0);
  for (let t = 0; t < 2000; t += 5) assert.ok(spring.positionAt(t) >= 0);
  assert.ok(spring.isSettled(1500));
  assert.ok(!spring.isSettled(0));
});

test('the velocity tracker measures the last 100 ms and forgets a finger that rested', () => {
  const tracker = new VelocityTracker();
  for (let t = 0; t <= 300; t += 10) tracker.add(t, t * 2, -t); // 2000 and -1000 points per second
  const v = tracker.velocity(300);
  assert.ok(Math.abs(v.x - 2000) < 1e-9 && Math.abs(v.y + 1000) < 1e-9);
  assert.deepEqual(tracker.velocity(400), { x: 0, y: 0 });
  tracker.reset();
  assert.deepEqual(tracker.velocity(0), { x: 0, y: 0 });
  tracker.add(0, 0, 0);
  tracker.add(50, 10, 0);
  tracker.add(250, 10, 0); // paused, then lifted
  assert.equal(tracker.velocity(250).x, 0);
});
