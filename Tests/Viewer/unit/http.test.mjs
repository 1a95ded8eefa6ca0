// The viewer's one fetch (Public/js/http.js): each way a request can fail becomes the right HttpError, with the
// server's own message when it sent one; aborts stay aborts. The page's fetch is replaced by a stub (the module's
// `fetch` option) that answers with real `Response` objects, so the body reading is the platform's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError, bearerFetch, parseJSON, parseRetryAfter, request } from '../../../Public/js/http.js';

/** A fetch that answers every request with `respond(url, init)` and records the calls. */
function stub(respond) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, init });
    return respond(url, init);
  };
  return { fetch, calls };
}

/** A JSON response. */
const json = (value, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

/** A body that sends `first` and then fails, as a connection dropped mid-answer does. */
function brokenBody(first = '{"tiles": [') {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
      controller.error(new TypeError('terminated'));
    },
  });
}

/** Asserts that `promise` rejects with an HttpError with these fields. */
async function rejectsWith(promise, fields) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof HttpError, `an HttpError, not ${error}`);
    assert.equal(error.name, 'HttpError');
    for (const [key, value] of Object.entries(fields)) assert.equal(error[key], value, key);
    return true;
  });
}

test('an answer is read as JSON by default, or as text or a blob; the response comes along for its headers', async () => {
  const { fetch, calls } = stub(() => new Response('{"a": [1, 2]}', { headers: { server: 'tiler' } }));
  const { body, response } = await request('/api/images', { what: 'the image list', fetch });
  assert.deepEqual(body, { a: [1, 2] });
  assert.equal(response.headers.get('server'), 'tiler');
  assert.equal((await request(new URL('http://h/x.dzi'), { what: 'x', as: 'text', fetch })).body, '{"a": [1, 2]}');
  const blob = (await request('/t.jpg', { what: 'tile', as: 'blob', fetch })).body;
  assert.equal(await blob.text(), '{"a": [1, 2]}');
  assert.deepEqual(calls.map((c) => c.url), ['/api/images', 'http://h/x.dzi', '/t.jpg'], 'URLs as strings');
  const signal = new AbortController().signal;
  await request('/a', { what: 'a', fetch, signal });
  assert.deepEqual(calls.at(-1).init, { signal }, 'a plain GET: only the signal is passed on');
});

test("an error status becomes a status error carrying the server's JSON error message", async () => {
  const { fetch } = stub(() => json({ error: 'edges has no tile 11/2_1.jpg', status: 404 }, 404));
  await rejectsWith(request('/images/edges_files/11/2_1.jpg', { what: 'tile', as: 'blob', fetch }), {
    kind: 'status', status: 404, detail: 'edges has no tile 11/2_1.jpg', url: '/images/edges_files/11/2_1.jpg',
    message: 'tile: HTTP 404 — edges has no tile 11/2_1.jpg',
  });
});

test('an error status without the server\'s JSON says the status alone', async () => {
  const bodies = [
    new Response('<html>Bad Gateway</html>', { status: 502 }), // a proxy's page
    json({ message: 'no error field' }, 500),
    json(null, 503),
    json({ error: 42 }, 500), // not a message
    new Response(null, { status: 404 }),
  ];
  for (const body of bodies) {
    const { fetch } = stub(() => body);
    await rejectsWith(request('/x', { what: 'the image list', fetch }), {
      kind: 'status', status: body.status, detail: '', message: `the image list: HTTP ${body.status}`,
    });
  }
});

test('no answer at all becomes a network error with status 0', async () => {
  const { fetch } = stub(() => Promise.reject(new TypeError('Failed to fetch')));
  await rejectsWith(request('http://h/a.dzi', { what: 'http://h/a.dzi', as: 'text', fetch }), {
    kind: 'network', status: 0, url: 'http://h/a.dzi', message: 'Could not reach the server for http://h/a.dzi.',
  });
});

test('an answer that breaks off becomes a network error with its status', async () => {
  for (const as of ['json', 'text', 'blob']) {
    const { fetch } = stub(() => new Response(brokenBody(), { status: 200 }));
    await rejectsWith(request('/v', { what: 'the viewport report', as, fetch }), {
      kind: 'network', status: 200, message: 'the viewport report: the answer broke off.',
    });
  }
});

test('an answer that is not JSON becomes a format error', async () => {
  const { fetch } = stub(() => new Response('<!doctype html><p>a captive portal</p>'));
  await rejectsWith(request('/api/images', { what: 'the image list', fetch }), {
    kind: 'format', status: 200, url: '/api/images', message: 'the image list: the answer is not JSON.',
  });
  assert.deepEqual(parseJSON(' {"width": 3} ', 'info'), { width: 3 });
  assert.throws(() => parseJSON('{width: 3}', 'http://h/info.json', { status: 200, url: 'http://h/info.json' }), (error) =>
    error instanceof HttpError && error.kind === 'format' && error.message === 'http://h/info.json: the answer is not JSON.');
});

test("an abort rejects with the signal's reason, untouched, at any stage", async () => {
  // Like the platform's fetch: rejects with the signal's reason once it is aborted.
  const pending = (url, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  const controller = new AbortController();
  const waiting = request('/t.jpg', { what: 'tile', as: 'blob', signal: controller.signal, fetch: pending });
  controller.abort();
  await assert.rejects(waiting, (error) => error === controller.signal.reason && error.name === 'AbortError');

  // Aborted while the body is read: the body fails, but the abort is what is reported.
  const late = new AbortController();
  const { fetch } = stub(() => {
    late.abort();
    return new Response(brokenBody(), { status: 200 });
  });
  await assert.rejects(request('/a', { what: 'a', signal: late.signal, fetch }), (error) => error === late.signal.reason);

  // Aborted while an error status's body is read: still the abort, not the status.
  const during = new AbortController();
  const { fetch: failing } = stub(() => {
    during.abort();
    return json({ error: 'gone' }, 404);
  });
  await assert.rejects(request('/b', { what: 'b', signal: during.signal, fetch: failing }), (error) => error === during.signal.reason);

  // An AbortError from a fetch without our signal (another layer aborted it) is passed on too.
  const abortError = new DOMException('The operation was aborted.', 'AbortError');
  const { fetch: foreign } = stub(() => Promise.reject(abortError));
  await assert.rejects(request('/c', { what: 'c', fetch: foreign }), (error) => error === abortError);
});

test("the page's fetch is used when none is given", async () => {
  const saved = globalThis.fetch;
  globalThis.fetch = async (url) => json({ url });
  try {
    assert.deepEqual((await request('/here', { what: 'here' })).body, { url: '/here' });
  } finally {
    globalThis.fetch = saved;
  }
});

test('bearerFetch sends the current token as the bearer and reports a 401 to a request that carried one', async () => {
  const { fetch, calls } = stub((url) => new Response('{}', { status: url === '/refused' ? 401 : 200 }));
  let token = 'tiler1.k.c.s';
  const refused = [];
  const authorised = bearerFetch(() => token, (t) => refused.push(t), fetch);
  await request('/a', { what: 'a', fetch: authorised });
  assert.equal(new Headers(calls[0].init.headers).get('authorization'), 'Bearer tiler1.k.c.s');
  await assert.rejects(request('/refused', { what: 'b', fetch: authorised }), (error) => error.status === 401);
  assert.deepEqual(refused, ['tiler1.k.c.s']);
  token = '';
  await assert.rejects(request('/refused', { what: 'c', fetch: authorised }));
  assert.equal(calls[2].init.headers, undefined, 'no token: nothing added');
  assert.deepEqual(refused, ['tiler1.k.c.s'], 'a request without a token is not a refused token');
});

test('a refusal carries its Retry-After in seconds (a tile not sliced yet); delay-seconds or a date', async () => {
  const notYet = new Response('{"error": "not yet"}', { status: 404, headers: { 'retry-after': '1', 'cache-control': 'no-store' } });
  await rejectsWith(request('/t.jpg', { what: 'tile', as: 'blob', fetch: stub(() => notYet).fetch }), { status: 404, retryAfter: 1, detail: 'not yet' });
  await rejectsWith(request('/t.jpg', { what: 'tile', as: 'blob', fetch: stub(() => json({ error: 'gone' }, 404)).fetch }), { status: 404, retryAfter: null });
  assert.equal(parseRetryAfter(' 3 '), 3);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 20:00:05 GMT', Date.parse('Thu, 26 Nov 2026 20:00:00 GMT')), 5);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 19:00:00 GMT', Date.parse('Thu, 26 Nov 2026 20:00:00 GMT')), 0);
  assert.equal(parseRetryAfter('soon'), null);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter('-1'), null);
});
