// Shared helpers of the viewer's node tests: a seeded random source and the paths of the repository.

import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root (three folders above this file). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The `tiler` executable the tests run: `$TILER_BIN`, else the debug build. */
export const tilerPath = process.env.TILER_BIN ?? path.join(repoRoot, '.build/debug/tiler');

/**
 * A seeded pseudo-random source (mulberry32), so a failing case can be reproduced from its seed.
 */
export class Random {
  /** @param {number} seed A 32-bit seed. */
  constructor(seed) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A float in [low, high). */
  uniform(low, high) {
    return low + (high - low) * this.next();
  }

  /** An integer in [low, high]. */
  int(low, high) {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  /** A float log-uniformly distributed in [low, high). */
  logUniform(low, high) {
    return Math.exp(this.uniform(Math.log(low), Math.log(high)));
  }

  /** One of `items`. */
  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }
}
