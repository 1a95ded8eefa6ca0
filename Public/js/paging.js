// UIScrollView's paging (`isPagingEnabled`), one axis at a time: the content rests on multiples of the page size
// (the box less its content insets) from the top-left resting offset, or on the far edge when the content is not a
// whole number of pages; a released drag moves at most one page from where it began, and glides into its page on a
// spring that carries the finger's speed without passing the page. Pure: time is passed in milliseconds.

import { Spring } from './scroll-physics.js';

/** A release faster than this (points per second) turns to the next page in its direction; slower, the nearest. */
export const PAGING_FLICK_VELOCITY = 200;
/** The paging spring's natural frequency in 1/s: from rest, 80 % of the way in 0.15 s, settled in about 0.6 s. */
export const PAGING_OMEGA = 20;

/**
 * The pages of one axis: offsets `min + k · size` below `max`, and `max` itself as the last.
 */
export class Pages {
  /**
   * @param {number} min The smallest resting offset (the first page).
   * @param {number} max The largest resting offset (the last page), ≥ `min`.
   * @param {number} size The page size in points (> 0).
   */
  constructor(min, max, size) {
    this.min = min;
    this.max = max;
    this.size = size;
    /** The index of the last page. A rounding error past a whole page is not a page of its own. */
    this.last = Math.max(0, Math.ceil((max - min) / size - 1e-9));
  }

  /** The offset of page `index` (clamped to the pages). */
  offset(index) {
    const k = Math.min(Math.max(index, 0), this.last);
    return k === this.last ? this.max : this.min + k * this.size;
  }

  /** Where `offset` lies in page units: an integer on a page, fractional between two (clamped to the pages). */
  position(offset) {
    if (this.last === 0 || offset <= this.min) return 0;
    if (offset >= this.max) return this.last;
    const k = Math.min(Math.floor((offset - this.min) / this.size), this.last - 1);
    const start = this.offset(k);
    return k + (offset - start) / (this.offset(k + 1) - start);
  }

  /**
   * The page a drag released at `offset` with `velocity` (points per second, content-offset direction) rests on:
   * the next page in the direction of a fast release, else the nearest; at most one page from `startPage`.
   * @returns {number} A page index.
   */
  target(offset, velocity, startPage) {
    const p = this.position(offset);
    let k;
    if (velocity > PAGING_FLICK_VELOCITY) k = Math.ceil(p - 1e-9);
    else if (velocity < -PAGING_FLICK_VELOCITY) k = Math.floor(p + 1e-9);
    else k = Math.round(p);
    return Math.min(Math.max(k, startPage - 1, 0), startPage + 1, this.last);
  }
}

/**
 * One axis gliding into its page: a critically damped spring from where the finger left it, starting with the
 * finger's velocity but never so fast towards the page that it would pass it. Same interface as AxisMotion.
 */
export class PageMotion {
  /**
   * @param {{position: number, velocity: number, target: number}} start Points and points per second.
   */
  constructor({ position, velocity, target }) {
    const x0 = position - target;
    // (x0 + (v0 + ω·x0)·t)·e^(−ωt) stays on x0's side of zero when v0 + ω·x0 has x0's sign.
    const limit = -PAGING_OMEGA * x0;
    const v0 = x0 > 0 ? Math.max(velocity, limit) : x0 < 0 ? Math.min(velocity, limit) : velocity;
    this.spring = new Spring(position, target, v0, PAGING_OMEGA);
  }

  /** Where the motion ends: the page. */
  get resting() {
    return this.spring.target;
  }

  /**
   * The position `t` ms after the start, and whether the motion is over (then exactly on the page).
   * @returns {{position: number, done: boolean}}
   */
  sample(t) {
    return this.spring.isSettled(t) ? { position: this.spring.target, done: true } : { position: this.spring.positionAt(t), done: false };
  }
}
