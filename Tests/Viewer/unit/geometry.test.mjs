// The pyramid and visible-tiles rules of docs/visible-query.md, on hand-checked examples.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pyramid, GeometryError, visibleTilesJSON } from '../../../Public/js/geometry.js';

test('levels, sizes and grids follow the DZI convention', () => {
  const p = new Pyramid(3000, 2000);
  assert.equal(p.maxLevel, 12);
  assert.deepEqual(p.levelSize(12), { width: 3000, height: 2000 });
  assert.deepEqual(p.levelSize(8), { width: 188, height: 125 });
  assert.deepEqual(p.levelSize(0), { width: 1, height: 1 });
  assert.deepEqual(p.grid(12), { columns: 12, rows: 8 });
  assert.equal(p.overviewLevel, 8);
  assert.equal(new Pyramid(1, 1).maxLevel, 0);
  assert.equal(new Pyramid(1, 1).overviewLevel, 0);
  assert.equal(new Pyramid(257, 3).maxLevel, 9);
  assert.equal(new Pyramid(2 ** 31, 5).maxLevel, 31);
  assert.throws(() => new Pyramid(0, 5), RangeError);
});

test('tile frames, rects and overlap rects', () => {
  const p = new Pyramid(3000, 2000, 256, 1);
  assert.deepEqual(p.tileFrame(12, 11, 7), { x: 2816, y: 1792, width: 184, height: 208 });
  assert.deepEqual(p.tileFrame(11, 1, 0), { x: 512, y: 0, width: 512, height: 512 });
  assert.deepEqual(p.tileRect(11, 5, 3), { x: 1280, y: 768, width: 220, height: 232 });
  assert.deepEqual(p.tileImageRect(11, 0, 0), { x: 0, y: 0, width: 257, height: 257 });
  assert.deepEqual(p.tileImageRect(11, 1, 1), { x: 255, y: 255, width: 258, height: 258 });
  assert.deepEqual(p.tileImageRect(11, 5, 3), { x: 1279, y: 767, width: 221, height: 233 });
  // A 2^31-wide image at level 0 has a span of 2^39 pixels: no 32-bit shifts anywhere.
  assert.equal(new Pyramid(2 ** 31, 5).span(0), 2 ** 39);
});

test('the level is the coarsest that never upsamples; exact powers of two stay coarse', () => {
  const p = new Pyramid(32768, 24576);
  assert.equal(p.level(0.25), 13);
  assert.equal(p.level(0.25 * (1 + 1e-12)), 13);
  assert.equal(p.level(0.25 * (1 + 1e-8)), 14);
  assert.equal(p.level(0.26), 14);
  assert.equal(p.level(0.125, 2), 13);
  assert.equal(p.level(1), 15);
  assert.equal(p.level(40), 15);
  assert.equal(p.level(1e-300), 0);
  assert.equal(p.level(Number.MIN_VALUE), 0);
  assert.equal(p.level(1e300, 1e300), 15);
  assert.equal(p.level(0.3), 14);
});

test('the spec example: 1024×576 points at zoom 0.25 over a 32768×24576 image', () => {
  const p = new Pyramid(32768, 24576);
  const answer = p.visibleTiles({ x: 0, y: 0, width: 1024, height: 576, zoomScale: 0.25 });
  const json = visibleTilesJSON(p, answer);
  assert.equal(json.level, 13);
  assert.equal(json.levelScale, 0.25);
  assert.deepEqual([json.levelWidth, json.levelHeight], [8192, 6144]);
  assert.deepEqual(json.visibleRect, { x: 0, y: 0, width: 4096, height: 2304 });
  assert.equal(json.tiles.length, 12);
  assert.deepEqual(json.tiles[0], { level: 13, col: 1, row: 1, x: 1024, y: 1024, width: 1024, height: 1024 });
  const distances = json.tiles.map((t) => (t.x + t.width / 2 - 2048) ** 2 + (t.y + t.height / 2 - 1152) ** 2);
  assert.deepEqual(distances, [...distances].sort((a, b) => a - b));
});

test('frames touching the visible rect along an edge are left out; prefetch widens the block', () => {
  const p = new Pyramid(2048, 2048);
  const one = p.visibleTiles({ x: 256, y: 256, width: 256, height: 256, zoomScale: 1 });
  assert.deepEqual(one.tiles.map((t) => [t.col, t.row]), [[1, 1]]);
  const nine = p.visibleTiles({ x: 256, y: 256, width: 256, height: 256, zoomScale: 1, prefetch: 1 });
  assert.equal(nine.tiles.length, 9);
  // Ties (all four edge neighbours are equally far) go by row, then column.
  assert.deepEqual(nine.tiles.slice(0, 5).map((t) => [t.col, t.row]), [[1, 1], [1, 0], [0, 1], [2, 1], [1, 2]]);
});

test('nothing visible: no tiles, but a level', () => {
  const p = new Pyramid(4000, 3000);
  for (const [x, y] of [[-2000, 0], [0, -2000], [5000, 0], [0, 5000], [-300, -300], [4000, 10]]) {
    const answer = p.visibleTiles({ x, y, width: 300, height: 300, zoomScale: 1, prefetch: 2 });
    assert.equal(answer.visibleRect, null);
    assert.deepEqual(answer.tiles, []);
    assert.equal(answer.level, 12);
  }
});

test('negative offsets show the top-left corner', () => {
  const p = new Pyramid(1000, 1000);
  const answer = p.visibleTiles({ x: -100, y: -50, width: 300, height: 200, zoomScale: 1 });
  assert.deepEqual(answer.visibleRect, { minX: 0, minY: 0, maxX: 200, maxY: 150 });
  assert.deepEqual(answer.tiles.map((t) => [t.col, t.row]), [[0, 0]]);
});

test('too many tiles are refused, naming prefetch or the viewport', () => {
  const p = new Pyramid(100000, 100000, 1);
  const viewport = { x: 0, y: 0, width: 1000, height: 1000, zoomScale: 1 };
  assert.throws(() => p.visibleTiles(viewport), (e) => e instanceof GeometryError && e.parameter === 'viewport');
  const q = new Pyramid(100000, 100000, 16);
  assert.throws(() => q.visibleTiles({ x: 0, y: 0, width: 100, height: 100, zoomScale: 1, prefetch: 400 }), (e) => e.parameter === 'prefetch');
});
