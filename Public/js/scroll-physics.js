// UIScrollView's feel, one axis at a time: rubber-band resistance past the edges, deceleration by a
// per-millisecond rate (the flick lands exactly where ZoomMath's projection says), a critically damped spring for
// bounces, and a velocity tracker for the finger. Pure: time is passed in milliseconds.

import { decelerationDistance, NORMAL_DECELERATION_RATE } from './zoom-math.js';

export { NORMAL_DECELERATION_RATE };

/** UIScrollView's rubber-band constant: how stiff the content feels past an edge. */
export const RUBBER_BAND_COEFFICIENT = 0.55;
/** The spring's natural frequency in 1/s: a bounce settles in about 0.45 s. */
export const SPRING_OMEGA = 15;
/** A flick stops (and snaps to its projected resting point) once less than this many points remain. */
export const STOP_DISTANCE = 0.1;

/**
 * How far content dragged `overshoot` points past an edge appears to move: `(1 − 1 / (|x|·c/d + 1)) · d`,
 * signed like `overshoot`; it approaches `dimension` but never reaches it.
 * @param {number} overshoot Points past the edge the finger has moved.
 * @param {number} dimension The viewport's size along the axis, in points (> 0).
 * @param {number} [c] The rubber-band constant.
 * @returns {number}
 */
export function rubberBand(overshoot, dimension, c = RUBBER_BAND_COEFFICIENT) {
  const a = Math.abs(overshoot);
  return Math.sign(overshoot) * (1 - 1 / ((a * c) / dimension + 1)) * dimension;
}

/**
 * The inverse of {@link rubberBand}: the overshoot that shows as `shown` points (|shown| < dimension).
 * @param {number} shown
 * @param {number} dimension
 * @param {number} [c]
 * @returns {number}
 */
export function inverseRubberBand(shown, dimension, c = RUBBER_BAND_COEFFICIENT) {
  const a = Math.min(Math.abs(shown), dimension * 0.999_999);
  return Math.sign(shown) * (dimension / c) * (1 / (1 - a / dimension) - 1);
}

/**
 * `value` inside `[min, max]` unchanged; past either end, the end plus the rubber-banded excess.
 * @returns {number}
 */
export function rubberBandClamp(value, min, max, dimension) {
  if (value < min) return min - rubberBand(min - value, dimension);
  if (value > max) return max + rubberBand(value - max, dimension);
  return value;
}

/** The inverse of {@link rubberBandClamp}: the unconstrained value that shows as `shown`. */
export function inverseRubberBandClamp(shown, min, max, dimension) {
  if (shown < min) return min - inverseRubberBand(min - shown, dimension);
  if (shown > max) return max + inverseRubberBand(shown - max, dimension);
  return shown;
}

/**
 * A flick on one axis: the velocity decays by `rate` every millisecond, so after `t` ms the content has moved
 * `D · (1 − rate^t)` with `D = decelerationDistance(velocity, rate)`, and comes to rest exactly at
 * `position + D` (ZoomMath's resting offset).
 */
export class Deceleration {
  /**
   * @param {number} position Where the flick starts, in points.
   * @param {number} velocity Points per second.
   * @param {number} [rate] Per-millisecond deceleration rate.
   */
  constructor(position, velocity, rate = NORMAL_DECELERATION_RATE) {
    this.position = position;
    this.rate = rate;
    /** The total distance travelled, in points. */
    this.distance = decelerationDistance(velocity, rate);
    /** Where it comes to rest. */
    this.resting = position + this.distance;
    /** How long it moves, in ms: until less than {@link STOP_DISTANCE} remains. */
    this.duration = Math.abs(this.distance) <= STOP_DISTANCE ? 0 : Math.log(STOP_DISTANCE / Math.abs(this.distance)) / Math.log(rate);
  }

  /** The position `t` ms after the start; exactly {@link Deceleration#resting} from the duration on. */
  positionAt(t) {
    return t >= this.duration ? this.resting : this.position + this.distance * (1 - this.rate ** t);
  }

  /** The velocity `t` ms after the start, in points per second (the derivative of the position). */
  velocityAt(t) {
    return t >= this.duration ? 0 : -this.distance * Math.log(this.rate) * this.rate ** t * 1000;
  }

  /** When the content first reaches `bound`, in ms, or `null` if it stops before. */
  crossing(bound) {
    const fraction = (bound - this.position) / this.distance;
    if (!(fraction >= 0 && fraction < 1)) return null;
    const t = Math.log(1 - fraction) / Math.log(this.rate);
    return t < this.duration ? t : null;
  }
}

/**
 * A critically damped spring pulling one axis to `target`: displacement `(x0 + (v0 + ω·x0)·t) · e^(−ωt)` — it
 * overshoots at most once when thrown past, like UIScrollView's bounce.
 */
export class Spring {
  /**
   * @param {number} position Start, in points.
   * @param {number} target Rest, in points.
   * @param {number} velocity Points per second at the start.
   * @param {number} [omega] Natural frequency in 1/s.
   */
  constructor(position, target, velocity, omega = SPRING_OMEGA) {
    this.target = target;
    this.x0 = position - target;
    this.v0 = velocity;
    this.omega = omega;
  }

  /** The position `t` ms after the start. */
  positionAt(t) {
    const s = t / 1000;
    return this.target + (this.x0 + (this.v0 + this.omega * this.x0) * s) * Math.exp(-this.omega * s);
  }

  /** The velocity `t` ms after the start, in points per second. */
  velocityAt(t) {
    const s = t / 1000;
    return (this.v0 - this.omega * (this.v0 + this.omega * this.x0) * s) * Math.exp(-this.omega * s);
  }

  /** Whether the spring is (visually) at rest `t` ms after the start. */
  isSettled(t) {
    return Math.abs(this.positionAt(t) - this.target) < 0.05 && Math.abs(this.velocityAt(t)) < 2;
  }
}

/**
 * One axis after the finger lifts: back from a rubber-banded position by a spring, or a flick that decelerates and,
 * when it reaches an edge, bounces on it. It ends exactly at the flick's resting point clamped to `[min, max]`.
 */
export class AxisMotion {
  /**
   * @param {{position: number, velocity: number, min: number, max: number, rate?: number, bounces?: boolean}} start
   *   Points and points per second; the bounds of the resting offset; whether it bounces on an edge.
   */
  constructor({ position, velocity, min, max, rate = NORMAL_DECELERATION_RATE, bounces = true }) {
    this.min = min;
    this.max = max;
    this.switchAt = Infinity;
    this.spring = null;
    this.deceleration = null;
    if (position < min || position > max) {
      this.spring = new Spring(position, position < min ? min : max, velocity);
      this.switchAt = 0;
      return;
    }
    this.deceleration = new Deceleration(position, velocity, rate);
    const bound = this.deceleration.distance < 0 ? min : max;
    const crossing = this.deceleration.crossing(bound);
    if (crossing !== null) {
      this.switchAt = crossing;
      // Without bounces the content stops dead at the edge (a spring with nothing to do is settled at once).
      this.spring = new Spring(bound, bound, bounces ? this.deceleration.velocityAt(crossing) : 0);
    }
  }

  /** Where the motion ends. */
  get resting() {
    return this.spring ? this.spring.target : this.deceleration.resting;
  }

  /**
   * The position `t` ms after the start, and whether the motion is over (then the position is exactly
   * {@link AxisMotion#resting}).
   * @returns {{position: number, done: boolean}}
   */
  sample(t) {
    if (t >= this.switchAt) {
      const local = t - this.switchAt;
      return this.spring.isSettled(local) ? { position: this.spring.target, done: true } : { position: this.spring.positionAt(local), done: false };
    }
    const done = t >= this.deceleration.duration;
    return { position: this.deceleration.positionAt(t), done };
  }
}

/**
 * Estimates the finger's velocity from its recent positions, as UIKit's pan recognizer does: over the last
 * `window` ms; zero when the finger has rested for more than `restMs` before lifting.
 */
export class VelocityTracker {
  /**
   * @param {number} [window] How far back samples count, in ms.
   * @param {number} [restMs] A pause this long before release means no flick.
   */
  constructor(window = 100, restMs = 50) {
    this.window = window;
    this.restMs = restMs;
    this.samples = [];
  }

  /** Forgets every sample. */
  reset() {
    this.samples = [];
  }

  /**
   * Moves every sample by (`dx`, `dy`): the tracked point jumped without the finger moving (a finger added or
   * lifted moves the midpoint the pan follows), and that jump is no velocity.
   */
  shift(dx, dy) {
    for (const s of this.samples) {
      s.x += dx;
      s.y += dy;
    }
  }

  /** Records the finger at (`x`, `y`) points at time `t` ms. */
  add(t, x, y) {
    this.samples.push({ t, x, y });
    while (this.samples.length > 2 && this.samples[0].t < t - this.window) this.samples.shift();
  }

  /**
   * The velocity in points per second at time `now` ms.
   * @returns {{x: number, y: number}}
   */
  velocity(now) {
    const last = this.samples[this.samples.length - 1];
    if (!last || now - last.t > this.restMs) return { x: 0, y: 0 };
    const first = this.samples.find((s) => s.t >= last.t - this.window) ?? last;
    const dt = last.t - first.t;
    if (dt <= 0) return { x: 0, y: 0 };
    return { x: ((last.x - first.x) / dt) * 1000, y: ((last.y - first.y) / dt) * 1000 };
  }
}
