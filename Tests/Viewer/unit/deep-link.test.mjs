// Deep links (`#image=NAME&x=…&y=…&zoom=…`) and the query-string options.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatHash, parseHash, roundView, sameView } from '../../../Public/js/deep-link.js';
import { DEFAULT_OPTIONS, parseOptions } from '../../../Public/js/options.js';
import { Random } from './support.mjs';

test('a hash names an image and, when complete and valid, a view', () => {
  assert.deepEqual(parseHash(''), { image: null, view: null });
  assert.deepEqual(parseHash('#'), { image: null, view: null });
  assert.deepEqual(parseHash('#image=pic'), { image: 'pic', view: null });
  assert.deepEqual(parseHash('#image=pic&x=-12.5&y=40&zoom=0.25'), { image: 'pic', view: { zoomScale: 0.25, x: -12.5, y: 40 } });
  assert.deepEqual(parseHash('image=maps%2Fcity&x=1&y=2&zoom=1e-3'), { image: 'maps/city', view: { zoomScale: 0.001, x: 1, y: 2 } });
  const bads = ['x=1&y=2', 'x=1&y=2&zoom=0', 'x=a&y=2&zoom=1', 'x=1&y=2&zoom=-1', 'x=Infinity&y=0&zoom=1', 'x=&y=1&zoom=1', 'x=0x10&y=1&zoom=1'];
  for (const bad of bads) {
    assert.deepEqual(parseHash(`#image=pic&${bad}`), { image: 'pic', view: null }, bad);
  }
});

test('formatting and parsing round-trip every name and view', () => {
  const random = new Random(3);
  for (const name of ['pic', 'maps/city', 'a b&c=d#e', 'größe/ñ', '100%']) {
    for (let i = 0; i < 50; i += 1) {
      const view = { zoomScale: random.logUniform(1e-4, 8), x: random.uniform(-2000, 1e6), y: random.uniform(-2000, 1e6) };
      const place = parseHash(formatHash({ image: name, view }));
      assert.equal(place.image, name);
      assert.deepEqual(place.view, roundView(view));
      assert.ok(sameView(place.view, view));
      // Formatting what was parsed gives the same hash: the URL is stable once written.
      assert.equal(formatHash(place), formatHash({ image: name, view }));
      assert.ok(Math.abs(place.view.zoomScale / view.zoomScale - 1) < 1e-8 && Math.abs(place.view.x - view.x) <= 0.005);
    }
  }
  assert.equal(formatHash({ image: null, view: null }), '');
  assert.equal(formatHash({ image: 'pic', view: null }), '#image=pic');
  assert.equal(formatHash({ image: 'p', view: { zoomScale: 0.5, x: -0.001, y: 3 } }), '#image=p&x=0&y=3&zoom=0.5');
});

test('options come from the query string, with defaults and one-line complaints', () => {
  assert.deepEqual(parseOptions(''), { options: { ...DEFAULT_OPTIONS }, problems: [] });
  const set = parseOptions('?maxScale=4&cache=64&prefetch=0&inflight=2').options;
  assert.deepEqual(set, { maxScale: 4, cacheCapacity: 64, prefetch: 0, maxInFlight: 2 });
  const { options, problems } = parseOptions('?cache=2.5&maxScale=abc&prefetch=9');
  assert.deepEqual(options, { ...DEFAULT_OPTIONS });
  assert.equal(problems.length, 3);
  assert.match(problems[0], /^maxScale must be a number from 0\.01 to 1024 \(got "abc"\)$/);
});
