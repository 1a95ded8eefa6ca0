// The tile loader's scheduling: geometry order, the in-flight bound, cancelling tiles that left the view,
// remembering failures until Retry, and tiles not sliced yet (404 with Retry-After) asked for again after the
// server's delay, backing off, only while wanted. Tiles come from a hand-driven source whose requests the test
// completes; time is a hand-driven clock and timer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_YET_MAX_ATTEMPTS, NOT_YET_MAX_DELAY_MS, TileLoader, notYetDelay } from '../../../Public/js/tile-loader.js';
import { HttpError } from '../../../Public/js/http.js';

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
  assert.deepEqual(loader.counts, { started: 4, aborted: 0, loaded: 4, failed: 0, notYet: 0 });
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

/** A clock and a one-shot timer the test moves by hand. */
function time() {
  const t = { now: 0, timers: [] };
  t.clock = () => t.now;
  t.schedule = (f, ms) => {
    const timer = { at: t.now + ms, f, cancelled: false };
    t.timers.push(timer);
    return timer;
  };
  t.unschedule = (timer) => {
    if (timer) timer.cancelled = true;
  };
  /** Moves to `ms` and runs the timers due by then. */
  t.advance = (ms) => {
    t.now = ms;
    for (const timer of t.timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.at <= ms) timer.f();
      else t.timers.push(timer);
    }
  };
  t.live = () => t.timers.filter((timer) => !timer.cancelled);
  return t;
}

const notYet = (seconds = 1) => new HttpError('tile: HTTP 404', { kind: 'status', status: 404, retryAfter: seconds });

test('a tile not there yet is no failure: asked for again once its Retry-After is over, and only while wanted', async () => {
  const { pending, load } = source();
  const t = time();
  const errors = [];
  let wakes = 0;
  const loader = new TileLoader({ maxInFlight: 4, load, onLoad: () => {}, onError: (key) => errors.push(key), onWake: () => { wakes += 1; }, ...t });
  loader.want(requests(['a', 'b']), () => false);
  pending.get('/t/a').reject(notYet(1));
  pending.get('/t/b').reject(notYet(1));
  await tick();
  assert.deepEqual(errors, [], 'not reported as failures');
  assert.equal(loader.failed.size, 0);
  assert.ok(loader.isMissing('a') && loader.isWaiting('a'));
  assert.equal(t.live().length, 1, 'one timer for both');
  pending.clear();
  loader.want(requests(['a', 'b']), () => false);
  assert.equal(pending.size, 0, 'nothing asked again before the delay');
  t.advance(999);
  assert.equal(wakes, 0);
  t.advance(1000);
  assert.equal(wakes, 1);
  loader.want(requests(['b']), () => false); // a left the view while it waited
  assert.deepEqual([...pending.keys()], ['/t/b']);
  pending.get('/t/b').resolve(bitmap('b'));
  await tick();
  assert.ok(!loader.isMissing('b'), 'an arrival ends the wait');
  assert.ok(loader.isMissing('a'), 'a is still missing: its coarser tiles stand in for it');
  assert.equal(loader.counts.notYet, 2);
  assert.equal(t.live().length, 0, 'no timer once nothing waits');
});

test('each miss of the same tile doubles the wait, up to a ceiling, never below the server’s; too many misses fail', async () => {
  assert.deepEqual([1, 2, 3, 4, 5, 9].map((n) => notYetDelay(1, n)), [1000, 2000, 4000, NOT_YET_MAX_DELAY_MS, NOT_YET_MAX_DELAY_MS, NOT_YET_MAX_DELAY_MS]);
  assert.equal(notYetDelay(0, 1), 250, 'Retry-After: 0 still waits a little');
  assert.equal(notYetDelay(10, 3), 10_000, 'a longer Retry-After is obeyed');
  const { pending, load } = source();
  const t = time();
  const errors = [];
  const loader = new TileLoader({ maxInFlight: 1, load, onLoad: () => {}, onError: (key, e) => errors.push([key, e.status]), ...t });
  const waits = [];
  for (let attempt = 1; attempt <= NOT_YET_MAX_ATTEMPTS + 1; attempt += 1) {
    pending.clear();
    loader.want(requests(['a']), () => false);
    assert.equal(pending.size, 1, `attempt ${attempt} is asked`);
    pending.get('/t/a').reject(notYet(1));
    await tick();
    if (attempt <= 3) waits.push(loader.notYet.get('a').due - t.now);
    t.advance(t.now + NOT_YET_MAX_DELAY_MS);
  }
  assert.deepEqual(waits, [1000, 2000, 4000]);
  assert.deepEqual(errors, [['a', 404]], 'reported as failed once, after the last attempt');
  assert.ok(loader.failed.has('a') && !loader.isMissing('a'));
  assert.equal(loader.counts.started, NOT_YET_MAX_ATTEMPTS + 1);
});

test('reset forgets waits and failures and cancels the timer; retry asks for waiting tiles at once', async () => {
  const { pending, load } = source();
  const t = time();
  const loader = new TileLoader({ maxInFlight: 4, load, onLoad: () => {}, onError: () => {}, ...t });
  loader.want(requests(['a', 'b']), () => false);
  pending.get('/t/a').reject(notYet(1));
  pending.get('/t/b').reject(new Error('tile: HTTP 500'));
  await tick();
  loader.retry();
  pending.clear();
  loader.want(requests(['a', 'b']), () => false);
  assert.deepEqual([...pending.keys()], ['/t/a', '/t/b']);
  pending.get('/t/a').reject(notYet(1));
  await tick();
  loader.reset();
  assert.ok(pending.get('/t/b').signal.aborted);
  assert.equal(loader.notYet.size + loader.failed.size + loader.inFlight.size, 0);
  assert.equal(t.live().length, 0);
});

test('tiles the server did not answer are retried by themselves, waiting 1 s, 2 s, 4 s … and no more once one arrives', async () => {
  const { pending, load } = source();
  let now = 0;
  const timers = [];
  let wakes = 0;
  const loader = new TileLoader({
    maxInFlight: 4, load, onLoad: () => {}, onError: () => {}, onWake: () => (wakes += 1), clock: () => now,
    schedule: (f, ms) => timers.push({ f, at: now + ms }) - 1, unschedule: (id) => id !== null && timers[id] && (timers[id].f = null),
  });
  const fail = async (name) => {
    pending.get(`/t/${name}`).reject(new HttpError('Could not reach the server for tile.', { kind: 'network' }));
    pending.delete(`/t/${name}`);
    await tick();
  };
  const runTimer = () => {
    const t = timers.filter((x) => x.f).sort((a, b) => a.at - b.at)[0];
    now = t.at;
    const f = t.f;
    t.f = null;
    f();
    return t;
  };
  const delays = [];
  for (let round = 0; round < 3; round += 1) {
    loader.want(requests(['a', 'b']), () => false);
    await fail('a');
    await fail('b');
    assert.ok(loader.unreachable);
    assert.equal(timers.filter((x) => x.f).length, 1, 'one timer for all of them');
    const start = now;
    delays.push(runTimer().at - start);
    assert.equal(loader.failed.size, 0, 'forgotten: asked for again when wanted');
  }
  assert.deepEqual(delays, [1000, 2000, 4000]);
  assert.equal(wakes, 3);
  loader.want(requests(['a']), () => false);
  pending.get('/t/a').resolve(bitmap('a'));
  await tick();
  assert.equal(loader.networkFailures, 0, 'a tile arrived: the next failure waits 1 s again');
  // A refusal (a status) is not retried by itself.
  loader.want(requests(['c']), () => false);
  pending.get('/t/c').reject(new HttpError('tile: HTTP 500', { kind: 'status', status: 500 }));
  await tick();
  assert.ok(!loader.unreachable);
  assert.equal(timers.filter((x) => x.f).length, 0);
});
