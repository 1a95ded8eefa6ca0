// The client tile cache: LRU order, the cap, pinned on-screen tiles and the kept overview.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TileCache } from '../../../Public/js/tile-cache.js';
import { Random } from './support.mjs';

test('least recently used tiles go first, and each is disposed once', () => {
  const disposed = [];
  const cache = new TileCache(3, (value, key) => disposed.push(key));
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.equal(cache.get('a'), 1); // a is now the most recent
  cache.set('d', 4);
  assert.deepEqual(disposed, ['b']);
  assert.ok(!cache.has('b') && cache.has('a') && cache.size === 3);
  cache.peek('c'); // peeking does not refresh c
  cache.set('e', 5);
  assert.deepEqual(disposed, ['b', 'c']);
  assert.equal(cache.evictions, 2);
  cache.set('e', 6); // replacing disposes the old value
  assert.deepEqual(disposed, ['b', 'c', 'e']);
});

test('pinned tiles and the kept overview are never evicted; the cache waits above its cap instead', () => {
  const cache = new TileCache(2);
  cache.keep('overview');
  cache.set('overview', 0);
  cache.pin(['x', 'y']);
  cache.set('x', 1);
  cache.set('y', 2);
  assert.equal(cache.size, 3); // everything is protected
  assert.deepEqual(cache.stats, { size: 3, capacity: 2, pinned: 2, kept: 1, evictions: 0, peak: 3 });
  cache.pin(['y']); // x leaves the screen
  assert.equal(cache.size, 2);
  assert.ok(cache.has('overview') && cache.has('y') && !cache.has('x'));
  cache.pin([]);
  cache.set('z', 3);
  assert.ok(cache.has('overview') && cache.has('z') && !cache.has('y'));
});

test('under random use the cache never exceeds its cap unless pins force it, and always keeps pins', () => {
  const random = new Random(7);
  const cache = new TileCache(20);
  cache.keep('k');
  cache.set('k', 'overview');
  for (let step = 0; step < 5000; step += 1) {
    const pins = Array.from({ length: random.int(0, 12) }, () => `t${random.int(0, 60)}`);
    cache.pin(pins);
    for (const key of pins) if (!cache.has(key)) cache.set(key, key);
    const extra = `t${random.int(0, 60)}`;
    cache.set(extra, extra);
    const protectedCount = new Set([...pins, 'k', extra]).size;
    assert.ok(cache.size <= Math.max(20, protectedCount), `size ${cache.size}`);
    for (const key of pins) assert.ok(cache.has(key));
    assert.ok(cache.has('k'));
  }
});

test('clear disposes everything; bad capacities are refused', () => {
  let count = 0;
  const cache = new TileCache(5, () => (count += 1));
  for (const key of 'abcd') cache.set(key, key);
  cache.clear();
  assert.equal(count, 4);
  assert.equal(cache.size, 0);
  assert.throws(() => new TileCache(0), RangeError);
  assert.throws(() => new TileCache(2.5), RangeError);
});
