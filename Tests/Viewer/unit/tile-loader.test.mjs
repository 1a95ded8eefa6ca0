// The tile loader's scheduling: geometry order, the in-flight bound, cancelling tiles that left the view,
// remembering failures until Retry. Tiles come from a hand-driven source whose requests the test completes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TileLoader } from '../../../Public/js/tile-loader.js';

/**
 * A tile source whose requests stay pending until the test resolves or rejects them; an abort rejects them, as
 * fetch does, unless `finishesAnyway` (a decode already under way still delivers its bitmap).
 */
function source(finishesAnyway = false) {
  const pending = new Map();
  const load = (url, signal) => new Promise((resolve, reject) => {
    pending.set(url, { resolve, reject, signal });
    if (!finishesAnyway) signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
  });
  return { pending, load };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const requests = (names) => names.map((name) => ({ key: name, url: `/t/${name}` }));
const bitmap = (name) => ({ name, closed: false, close() { this.closed = true; } });

test('requests start in the given order, at most maxInFlight at once, and the queue drains as tiles arrive', async () => {
  const { pending, load } = source();
  const loaded = [];
  const loader = new TileLoader({ maxInFlight: 2, load, onLoad: (key) => loaded.push(key), onError: () => {} });
  loader.want(requests(['a', 'b', 'c', 'd']), () => false);
  assert.deepEqual([...pending.keys()], ['/t/a', '/t/b']);
  pending.get('/t/b').resolve(bitmap('b'));
  await tick();
  assert.deepEqual(loaded, ['b']);
  assert.deepEqual([...pending.keys()], ['/t/a', '/t/b', '/t/c']);
  assert.equal(loader.inFlight.size, 2);
  for (const name of ['a', 'c']) pending.get(`/t/${name}`).resolve(bitmap(name));
  await tick();
  pending.get('/t/d').resolve(bitmap('d'));
  await tick();
  assert.deepEqual(loaded, ['b', 'a', 'c', 'd']);
  assert.ok(loader.isIdle);
  assert.deepEqual(loader.counts, { started: 4, aborted: 0, loaded: 4, failed: 0 });
});

test('tiles that are no longer wanted are aborted; tiles still wanted keep loading; loaded tiles are skipped', async () => {
  const { pending, load } = source(true);
  const loaded = [];
  const loader = new TileLoader({ maxInFlight: 3, load, onLoad: (key) => loaded.push(key), onError: () => assert.fail('no errors') });
  loader.want(requests(['a', 'b', 'c', 'd']), () => false);
  loader.want(requests(['x', 'b', 'y']), (key) => key === 'x'); // the view moved; x is already cached
  assert.ok(pending.get('/t/a').signal.aborted && pending.get('/t/c').signal.aborted);
  assert.ok(!pending.get('/t/b').signal.aborted);
  assert.deepEqual([...loader.inFlight.keys()], ['b', 'y']);
  const late = bitmap('a');
  pending.get('/t/a').resolve(late); // the aborted answer arrives anyway: it is dropped and released
  pending.get('/t/b').resolve(bitmap('b'));
  pending.get('/t/y').resolve(bitmap('y'));
  await tick();
  assert.deepEqual(loaded, ['b', 'y']);
  assert.ok(late.closed);
  assert.ok(!pending.has('/t/d'), 'd left the view before it started');
  assert.equal(loader.counts.aborted, 2);
});

test('a failed tile is reported once and not requested again until retry', async () => {
  const { pending, load } = source();
  const errors = [];
  const loader = new TileLoader({ maxInFlight: 4, load, onLoad: () => {}, onError: (key, error) => errors.push([key, error.message]) });
  loader.want(requests(['a']), () => false);
  pending.get('/t/a').reject(new Error('tile: HTTP 500'));
  await tick();
  assert.deepEqual(errors, [['a', 'tile: HTTP 500']]);
  pending.clear();
  loader.want(requests(['a']), () => false);
  assert.equal(pending.size, 0);
  assert.ok(loader.failed.has('a'));
  loader.retry();
  loader.want(requests(['a']), () => false);
  assert.ok(pending.has('/t/a'));
  loader.cancelAll();
  assert.ok(pending.get('/t/a').signal.aborted && loader.isIdle);
});
