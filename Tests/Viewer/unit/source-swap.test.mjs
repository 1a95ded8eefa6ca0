// A pyramid still being sliced, then its final version (Public/js/source-swap.js, tile-layer.js, tile-loader.js):
// a missing tile's coarser tiles are asked for in its place; the swap to the final version keeps every tile on
// screen (stale) until its replacement arrives, asks for the replacements from the new URLs, and lets a replacement
// show as fully as the tile it replaces. Real Pyramid, ScrollView, TileCache, TileLayer and TileLoader; the canvas
// is a recording stand-in (node has none; the element in Chromium: Tests/Viewer/browser/test_drop.py).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pyramid } from '../../../Public/js/geometry.js';
import { ScrollView } from '../../../Public/js/scroll-view.js';
import { TileCache } from '../../../Public/js/tile-cache.js';
import { FADE_MS, TileLayer, tileKey } from '../../../Public/js/tile-layer.js';
import { TileLoader } from '../../../Public/js/tile-loader.js';
import { adoptSource, arrivalTime, isCurrent, sameGeometry } from '../../../Public/js/source-swap.js';

/** A canvas whose 2D context records what is drawn. */
function canvas() {
  const drawn = [];
  const context = { setTransform() {}, clearRect() { drawn.length = 0; }, drawImage: (bitmap) => drawn.push(bitmap.name) };
  return { width: 800, height: 600, drawn, getContext: () => context };
}

const bitmap = (name) => ({ name, width: 256, height: 256, close() {} });

/** A 4000 × 3000 pyramid (levels 0–12, overview level 8) shown in an 800 × 600 box at zoom 1/4 (level 10). */
function world(version = 'v1') {
  const pyramid = new Pyramid(4000, 3000, 256, 0);
  const sv = new ScrollView({ contentSize: { width: 4000, height: 3000 }, viewportSize: { width: 800, height: 600 } });
  const surface = canvas();
  const cache = new TileCache(300);
  const source = (v) => ({ name: 'alps', pyramid, tileURL: (l, c, r) => `/images/alps@${v}_files/${l}/${c}_${r}.jpg` });
  const layer = new TileLayer(surface, source(version), { cache, prefetch: 0 });
  return { pyramid, sv, surface, cache, layer, source };
}

test('a missing tile is followed by its parent, and by the parent’s parent while those are missing too', () => {
  const { sv, layer, pyramid } = world();
  layer.render(sv, 0);
  const plain = layer.requests().map((r) => r.key);
  assert.equal(plain[0], tileKey(pyramid.overviewLevel, 0, 0));
  assert.equal(layer.shown.level, 10);
  assert.deepEqual(layer.requests(() => false).map((r) => r.key), plain, 'nothing missing: the plain list');
  const missing = new Set(['10/1_1', '9/0_0']);
  const keys = layer.requests((k) => missing.has(k)).map((r) => r.key);
  const at = keys.indexOf('10/1_1');
  assert.deepEqual(keys.slice(at, at + 2), ['10/1_1', '9/0_0'], 'the parent right after the missing tile');
  assert.equal(pyramid.overviewLevel, 8, 'and 9/0_0 missing too: its parent is the overview, listed first already');
  assert.ok(!keys.slice(1).includes(tileKey(pyramid.overviewLevel, 0, 0)), 'the overview is not listed twice');
  assert.equal(new Set(keys).size, keys.length, 'no tile twice');
  const everything = layer.requests((k) => k.startsWith('10/') || k.startsWith('9/'));
  const nine = everything.filter((r) => r.key.startsWith('9/'));
  assert.ok(nine.length > 0 && nine.every((r) => r.url === `/images/alps@v1_files/${r.key}.jpg`));
  assert.ok(everything.length < plain.length * 2, 'bounded: one parent per 2×2 children at most, once');
});

test('after the swap every tile stays on screen until its replacement from the new URLs arrives, then shows at once', async () => {
  const { sv, cache, layer, surface, source, pyramid } = world('v1');
  layer.render(sv, 0);
  for (const r of layer.requests()) cache.set(r.key, { bitmap: bitmap(`old ${r.key}`), loadedAt: 0 });
  layer.render(sv, FADE_MS);
  const before = [...surface.drawn];
  assert.equal(before.length, layer.shown.tiles.length, 'the level’s tiles only, all opaque');
  assert.equal(layer.stats.stale, 0);

  const loads = [];
  const loader = new TileLoader({ maxInFlight: 64, load: (url) => new Promise((resolve) => loads.push({ url, resolve })), onLoad: () => {}, onError: () => {} });
  loader.want([{ key: 'x', url: '/images/alps@v1_files/old.jpg' }], () => false);
  let invalidated = 0;
  const element = { source: source('v1'), layer, loader, cache, invalidate: () => { invalidated += 1; } };
  adoptSource(element, source('v2'));
  assert.equal(invalidated, 1);
  assert.equal(loader.inFlight.size, 0, 'the old version’s requests are dropped');
  layer.render(sv, FADE_MS + 1);
  assert.deepEqual(surface.drawn, before, 'the same tiles drawn, nothing blank');
  assert.equal(layer.stats.stale, layer.shown.tiles.length);
  assert.equal(layer.stats.missing, 0);

  loader.onLoad = (key, b) => cache.set(key, { bitmap: b, loadedAt: arrivalTime(cache.peek(key), 5000) });
  loader.want(layer.requests(), (k) => isCurrent(cache.peek(k)));
  assert.ok(loads.length > 1 && loads.slice(1).every((l) => l.url.includes('@v2_files/')), 'replacements from the new URLs');
  const first = layer.shown.tiles[0];
  const firstKey = tileKey(first.level, first.col, first.row);
  loads.find((l) => l.url.endsWith(`/${firstKey}.jpg`)).resolve(bitmap(`new ${firstKey}`));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.peek(firstKey).loadedAt, 0, 'it takes the arrival time of the tile it replaced: fully shown');
  layer.render(sv, 5001);
  assert.deepEqual(surface.drawn, before.map((name) => (name === `old ${firstKey}` ? `new ${firstKey}` : name)), 'swapped in place, no coarser tile under it');
  assert.equal(layer.stats.stale, layer.shown.tiles.length - 1);
  assert.equal(layer.pyramid, pyramid, 'the geometry object is the one the view was made with');
});

test('a replacement of a tile still fading in goes on fading from where it was; a new tile fades in', () => {
  assert.equal(arrivalTime({ stale: true, loadedAt: 900 }, 1000), 900);
  assert.equal(arrivalTime({ stale: false, loadedAt: 900 }, 1000), 1000);
  assert.equal(arrivalTime(undefined, 1000), 1000);
  assert.equal(isCurrent(undefined), false);
  assert.equal(isCurrent({ stale: true }), false);
  assert.equal(isCurrent({}), true);
});

test('only the same size, tile size and overlap count as the same geometry', () => {
  const p = new Pyramid(4000, 3000, 256, 0);
  assert.ok(sameGeometry(p, new Pyramid(4000, 3000, 256, 0)));
  for (const other of [new Pyramid(4001, 3000, 256, 0), new Pyramid(4000, 2999, 256, 0), new Pyramid(4000, 3000, 254, 0), new Pyramid(4000, 3000, 256, 1)]) {
    assert.ok(!sameGeometry(p, other));
  }
});
