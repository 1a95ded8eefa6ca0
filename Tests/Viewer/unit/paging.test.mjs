// Paging without a browser: the pages of an axis, the page a release rests on, the glide into it, and the
// controller's delegate sequence with isPagingEnabled.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pages, PageMotion, PAGING_FLICK_VELOCITY } from '../../../Public/js/paging.js';
import { FLICK, collapsed, finish, setup } from './scroll-support.mjs';

test('pages: multiples of the page size from the first offset, the far edge as the last', () => {
  const pages = new Pages(-10, 2562, 428);
  assert.equal(pages.last, 7);
  assert.deepEqual([0, 1, 6, 7, 8, -1].map((k) => pages.offset(k)), [-10, 418, 2558, 2562, 2562, -10]);
  assert.equal(pages.position(-10 + 2.5 * 428), 2.5);
  assert.equal(pages.position(2560), 6.5, 'the short last page counts as a whole one');
  assert.equal(pages.position(-500), 0);
  assert.equal(new Pages(0, 1000, 500).last, 2);
  assert.equal(new Pages(0, 1000 + 1e-10, 500).last, 2, 'a rounding error is no page of its own');
  assert.equal(new Pages(5, 5, 400).position(5), 0);
});

test('the page a release rests on: nearest when slow, the next one in the direction of a fast one, one page at most', () => {
  const pages = new Pages(0, 4000, 400);
  const fast = PAGING_FLICK_VELOCITY + 1;
  assert.equal(pages.target(400 * 3.4, 0, 3), 3);
  assert.equal(pages.target(400 * 3.6, 0, 3), 4);
  assert.equal(pages.target(400 * 3.1, fast, 3), 4);
  assert.equal(pages.target(400 * 3.9, -fast, 3), 3, 'a flick back returns to the page it came from');
  assert.equal(pages.target(400 * 2.9, -fast, 3), 2);
  assert.equal(pages.target(400 * 5.3, fast, 4), 5, 'never more than one page from where the drag began');
  assert.equal(pages.target(400 * 9.9, fast, 9), 10);
  assert.equal(pages.target(400 * 10, fast, 10), 10, 'not past the last page');
});

test('the glide into a page: fast at first, never past the page, exactly on it at the end, in about half a second', () => {
  for (const velocity of [0, 800, 5000, -300]) {
    const motion = new PageMotion({ position: 1000, velocity, target: 1400 });
    let t = 0;
    let last = 1000;
    let s = motion.sample(0);
    while (!s.done) {
      assert.ok(s.position <= 1400 + 1e-9, `past the page at ${t} ms (velocity ${velocity})`);
      if (velocity >= 0) assert.ok(s.position >= last - 1e-9, 'it does not turn back');
      last = s.position;
      t += 1;
      s = motion.sample(t);
    }
    assert.equal(s.position, 1400);
    assert.ok(t < 700, `settled after ${t} ms`);
    assert.ok(new PageMotion({ position: 1000, velocity, target: 1400 }).sample(150).position > 1300, 'three quarters of the way in 150 ms');
  }
  assert.equal(new PageMotion({ position: 5, velocity: 0, target: 5 }).sample(0).done, true);
});

test('a paging drag: the delegate sees the page as the target and cannot move it; the content rests on the page', () => {
  let seen = null;
  const warn = console.warn;
  const warnings = [];
  console.warn = (message) => warnings.push(message);
  try {
    const { sv, controller, log } = setup({
      onEmit: (name, detail) => {
        if (name !== 'willEndDragging') return;
        seen = { ...detail.targetContentOffset };
        detail.targetContentOffset.x = 0;
      },
    });
    controller.isPagingEnabled = true;
    controller.setView({ zoomScale: 1, x: 800, y: 600 }); // page 1 across and down (pages of 800 × 600, the last at 2200)
    log.length = 0;
    controller.beginPan({ x: 400, y: 300 }, 0, 4);
    for (let i = 1; i <= 6; i += 1) controller.pan({ x: 400 - 6 * i, y: 300 }, 10 * i);
    controller.endPan(65);
    finish(controller, 65);
    assert.deepEqual(seen, { x: 1600, y: 600 });
    assert.deepEqual({ x: sv.x, y: sv.y }, { x: 1600, y: 600 });
    assert.deepEqual(collapsed(log), FLICK);
    assert.deepEqual(warnings, ['Stop offset can not be modified for paging scroll views']);
  } finally {
    console.warn = warn;
  }
});
