// geometry.js against the real thing: `tiler visible` (Swift's TileGeometry) on a few hundred seeded random
// viewports must give the same level, visible rect and tiles in the same order — or the same refusal.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { Pyramid, GeometryError, visibleTilesJSON } from '../../../Public/js/geometry.js';
import { Random, tilerPath } from './support.mjs';

const run = promisify(execFile);
const CASES = 320;

/** A random image, tile grid and viewport, biased towards the edges of the rules (powers of two, borders). */
function randomCase(random) {
  const tiny = random.next() < 0.15;
  const width = tiny ? random.int(1, 300) : Math.round(random.logUniform(1, 2 ** 20));
  const height = tiny ? random.int(1, 300) : Math.round(random.logUniform(1, 2 ** 20));
  const tileSize = tiny && random.next() < 0.5 ? random.int(1, 40) : random.pick([256, 254, 512, 510, 128, 1000, random.int(64, 1024)]);
  const overlap = random.int(0, Math.min(tileSize - 1, 3));
  const viewport = {
    width: random.pick([random.int(1, 2560), random.uniform(0.5, 2000), 1024, 800]),
    height: random.pick([random.int(1, 1600), random.uniform(0.5, 1500), 576, 600]),
  };
  const fit = Math.min(viewport.width / width, viewport.height / height);
  const contentScale = random.pick([1, 2, 1.5, 3, 1.25, random.uniform(0.5, 4)]);
  let zoom = fit * 2 ** random.uniform(-3, 6);
  if (random.next() < 0.3) {
    // Powers of two on the device (rounded when contentScale is not one), sometimes nudged across the 1e-9 tolerance.
    zoom = 2 ** random.int(-12, 2) / contentScale;
    if (random.next() < 0.5) zoom *= 1 + random.pick([1e-12, 1e-10, 6e-10, 8e-10, 2e-9, -1e-12, -2e-9]);
  }
  const contentWidth = width * zoom;
  const contentHeight = height * zoom;
  let x = random.uniform(-0.6 * viewport.width, contentWidth - 0.4 * viewport.width);
  let y = random.uniform(-0.6 * viewport.height, contentHeight - 0.4 * viewport.height);
  if (random.next() < 0.2) x = Math.round(x);
  if (random.next() < 0.2) y = Math.round(y);
  if (random.next() < 0.05) x = -viewport.width * 2; // nothing visible
  const prefetch = random.pick([0, 0, 1, 2, 3]);
  return { width, height, tileSize, overlap, viewport: { ...viewport, x, y, zoomScale: zoom, contentScale, prefetch } };
}

/** The JS answer, or the refusal as `{error: parameter}`. */
function jsAnswer(c) {
  const pyramid = new Pyramid(c.width, c.height, c.tileSize, c.overlap);
  try {
    return visibleTilesJSON(pyramid, pyramid.visibleTiles(c.viewport));
  } catch (error) {
    if (error instanceof GeometryError) return { error: error.parameter };
    throw error;
  }
}

/** The binary's answer for the same case, or its refusal as `{error: parameter}`. */
async function binaryAnswer(c) {
  const v = c.viewport;
  const args = [
    'visible', '--size', `${c.width}x${c.height}`, '--tile-size', String(c.tileSize), '--overlap', String(c.overlap),
    `--offset=${v.x},${v.y}`, '--viewport', `${v.width}x${v.height}`, '--zoom', String(v.zoomScale),
    '--content-scale', String(v.contentScale), '--prefetch', String(v.prefetch),
  ];
  try {
    const { stdout } = await run(tilerPath, args, { maxBuffer: 256 << 20 });
    return JSON.parse(stdout);
  } catch (error) {
    const match = /--(prefetch|viewport)/.exec(error.stderr ?? '');
    if (error.code === 64 && /more than the limit/.test(error.stderr) && match) return { error: match[1] };
    throw new Error(`tiler ${args.join(' ')} failed: ${error.stderr ?? error}`);
  }
}

test('the tiler binary exists (run `swift build` first)', () => {
  assert.ok(existsSync(tilerPath), `no tiler at ${tilerPath}`);
});

test(`geometry.js agrees with \`tiler visible\` on ${CASES} seeded random viewports`, async () => {
  const random = new Random(20240607);
  const cases = Array.from({ length: CASES }, () => randomCase(random));
  let next = 0;
  let withTiles = 0;
  let refused = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index];
      const expected = await binaryAnswer(c);
      assert.deepStrictEqual(jsAnswer(c), expected, `case ${index}: ${JSON.stringify(c)}`);
      if (expected.error) refused += 1;
      else if (expected.tiles.length > 0) withTiles += 1;
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  // The cases must exercise the interesting part: most show tiles.
  assert.ok(withTiles > CASES * 0.7, `only ${withTiles} cases had tiles`);
  assert.ok(refused < CASES * 0.1, `${refused} cases were refused`);
});
