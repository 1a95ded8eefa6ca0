// The viewport loop: which answer belongs to the view on screen, loading in the server's order, and the reports
// themselves through a stub fetch — fire-and-forget, never aborted, a failed one dropped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BURST, HOLD_MS, INTERVAL_MS, ViewportReporter, orderedLike, viewKey } from '../../../Public/js/viewport-reporter.js';

test('an answer belongs to a view up to 1/100 point', () => {
  const view = { x: 10.001, y: -5, width: 800, height: 600, zoomScale: 0.5, contentScale: 2 };
  assert.equal(viewKey(view), viewKey({ ...view, x: 10.004 }));
  assert.notEqual(viewKey(view), viewKey({ ...view, x: 10.02 }));
  assert.notEqual(viewKey(view), viewKey({ ...view, contentScale: 1 }));
});

test("tiles load in the server's order, the overview first and unlisted tiles last", () => {
  const r = (name) => ({ key: name, url: `http://h/${name}` });
  const local = [r('overview'), r('a'), r('b'), r('c'), r('d')];
  const ordered = orderedLike(local, ['http://h/c', 'http://h/a', 'http://h/zz']);
  assert.deepEqual(ordered.map((x) => x.key), ['overview', 'c', 'a', 'b', 'd']);
});

const endpoint = 'http://h/api/images/pic/visible';
const view = { x: 100, y: 50, width: 800, height: 600, zoomScale: 0.5, contentScale: 2 };
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A reporter whose fetch answers with `respond()` and records the calls. */
function reporterAnswering(respond) {
  const calls = [];
  const reporter = new ViewportReporter(endpoint, {
    fetch: async (url, init) => {
      calls.push({ url, init });
      return respond();
    },
  });
  return { reporter, calls };
}

test("a report is one plain GET with the view's query; the answer is kept for that view, in the server's order", async () => {
  const tiles = [{ url: '/images/pic_files/11/1_0.jpg' }, { url: '/images/pic_files/11/0_0.jpg' }];
  const { reporter, calls } = reporterAnswering(() => Response.json({ tiles }));
  reporter.report(view, true, 1000);
  assert.equal(calls.length, 1);
  const url = new URL(calls[0].url);
  assert.equal(`${url.origin}${url.pathname}`, endpoint);
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    x: '100', y: '50', width: '800', height: '600', zoomScale: '0.5', contentScale: '2', prefetch: '1', viewer: reporter.viewer,
  });
  assert.equal(calls[0].init.signal, undefined, 'never aborted');
  assert.equal(calls[0].init.keepalive, undefined, 'no keepalive');
  await settle();
  assert.deepEqual(reporter.orderFor(viewKey(view)), ['http://h/images/pic_files/11/1_0.jpg', 'http://h/images/pic_files/11/0_0.jpg']);
  assert.equal(reporter.orderFor(viewKey({ ...view, x: 101 })), null, 'not for another view');
});

test('a failed report is dropped without a word and keeps the last answer', async () => {
  const answers = [
    () => Response.json({ error: 'no image named pic', status: 404 }, { status: 404 }),
    () => Promise.reject(new TypeError('Failed to fetch')),
    () => new Response('<html>'),
    () => Response.json({ no: 'tiles' }),
  ];
  for (const answer of answers) {
    let respond = () => Response.json({ tiles: [{ url: '/t/a.jpg' }] });
    const { reporter, calls } = reporterAnswering(() => respond());
    reporter.report(view, true, 1000);
    await settle();
    respond = answer;
    reporter.report({ ...view, x: 200 }, true, 2000);
    await settle();
    assert.equal(calls.length, 2);
    assert.deepEqual(reporter.orderFor(viewKey(view)), ['http://h/t/a.jpg'], 'the earlier answer stays');
    assert.equal(reporter.orderFor(viewKey({ ...view, x: 200 })), null);
  }
});

test('reports while moving are throttled; cancel drops the pending one', async () => {
  const { reporter, calls } = reporterAnswering(() => Response.json({ tiles: [] }));
  reporter.report(view, false, 1000);
  reporter.report({ ...view, x: 110 }, false, 1000 + INTERVAL_MS / 2);
  reporter.report({ ...view, x: 110 }, false, 1000 + INTERVAL_MS / 2); // the same view again: nothing new
  assert.equal(calls.length, 1, 'the second waits');
  reporter.cancel();
  await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  assert.equal(calls.length, 1, 'and is dropped');
  reporter.report({ ...view, x: 120 }, true, 1000 + INTERVAL_MS / 2);
  assert.equal(calls.length, 2, 'a settled view is reported at once');
  assert.equal(reporter.sent, 2);
});

test("predicted end states go at once within the bucket; past it they wait their turn, and the rate stays at most one per interval", async () => {
  const { reporter, calls } = reporterAnswering(() => Response.json({ tiles: [] }));
  reporter.report(view, false, 1000);
  reporter.predict({ ...view, x: 5000 }, 1001);
  assert.equal(calls.length, 2, 'a flick target right after the drag report');
  assert.equal(reporter.predicted, 1);
  reporter.predict({ ...view, x: 6000 }, 1002);
  assert.equal(calls.length, 2, 'the bucket is empty');
  reporter.report({ ...view, x: 300 }, false, 1003);
  assert.equal(reporter.pending.viewport.x, 6000, 'a pending prediction is not replaced by a moving view');
  reporter.predict({ ...view, x: 5000 }, 1004);
  assert.equal(reporter.pending.viewport.x, 6000, 'a view just reported is not queued again');
  reporter.cancel();
  // Over a simulated minute of reports every frame, the bucket lets at most one per interval through (plus the burst).
  const moving = reporterAnswering(() => Response.json({ tiles: [] }));
  for (let t = 0; t < 60_000; t += 16) moving.reporter.predict({ ...view, x: t }, t);
  moving.reporter.cancel();
  assert.ok(moving.calls.length <= 60_000 / INTERVAL_MS + BURST, `${moving.calls.length} reports`);
  assert.ok(moving.calls.length >= 60_000 / INTERVAL_MS - 1);
});

test('tiles wait for an answer naming them, at most HOLD_MS; not at all while reports fail', async () => {
  let respond = () => Response.json({ tiles: [{ level: 11, col: 0, row: 1, url: '/t/a.jpg' }] });
  const changes = [];
  const calls = [];
  const reporter = new ViewportReporter(endpoint, {
    fetch: async (url) => {
      calls.push(url);
      return respond();
    },
    onChange: () => changes.push('change'),
  });
  const r = (name) => ({ key: name, url: `http://h/t/${name}.jpg` });
  // Matched by key, whatever the URLs (an unversioned .dzi's tiles against the server's versioned URLs).
  const wanted = [r('overview'), { key: '11/0_1', url: 'http://h/other/a.jpg' }, r('b')];
  assert.deepEqual(reporter.ready(wanted, 0).map((x) => x.key), ['overview'], 'nothing named yet: only the overview');
  reporter.report(view, true, 0);
  await settle();
  assert.ok(changes.length >= 1, 'the answer asks for a frame');
  assert.deepEqual(reporter.ready(wanted, 10).map((x) => x.key), ['overview', '11/0_1'], 'the named tile goes');
  assert.deepEqual(reporter.ready(wanted, HOLD_MS - 1).map((x) => x.key), ['overview', '11/0_1']);
  assert.deepEqual(reporter.ready(wanted, HOLD_MS).map((x) => x.key), ['overview', '11/0_1', 'b'], 'b waited long enough');
  reporter.cancel();
  respond = () => Promise.reject(new TypeError('Failed to fetch'));
  reporter.report({ ...view, x: 999 }, true, 1000);
  await settle();
  assert.equal(reporter.healthy, false);
  const fresh = [r('overview'), r('c')];
  assert.deepEqual(reporter.ready(fresh, 1001).map((x) => x.key), ['overview', 'c'], 'reports failing: no waiting');
});

test('a failed report of an unchanged view is sent again only after 1 s, 2 s, 4 s …', async () => {
  const { reporter, calls } = reporterAnswering(() => Promise.reject(new TypeError('Failed to fetch')));
  const sentAt = [];
  for (let t = 1000; t <= 7000; t += 50) {
    const before = calls.length;
    reporter.report(view, true, t);
    if (calls.length > before) sentAt.push(t);
    await settle();
  }
  reporter.cancel();
  assert.deepEqual(sentAt, [1000, 2000, 4000], 'about 25 before');
  const again = reporterAnswering(() => Promise.reject(new TypeError('Failed to fetch')));
  again.reporter.report(view, true, 1000);
  await settle();
  again.reporter.report({ ...view, x: 300 }, true, 1100);
  assert.equal(again.calls.length, 2, 'another view is reported at once');
  again.reporter.cancel();
});
