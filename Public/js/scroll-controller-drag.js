// ScrollController's drags, UIScrollView's way: a touch tracks, becomes a drag after a small distance and then moves
// the content 1:1 under the finger (rubber-banded past the edges when `bounces`); on release the delegate may change
// where the flick comes to rest, then the content decelerates and bounces — or, with `isPagingEnabled`, glides into
// a page. Every drag that ends passes through `willEndDragging`, then `didEndDragging`.

import { AxisMotion, inverseRubberBandClamp, rubberBandClamp, STOP_DISTANCE } from './scroll-physics.js';
import { Pages, PageMotion } from './paging.js';
import { clampedOffset, restingOffset } from './zoom-math.js';

/** Directional lock: a drag starting within this ratio of an axis (about 27°) moves along that axis only. */
const LOCK_RATIO = 2;

/** The drag methods of {@link ScrollController} (installed on its prototype; `this` is the controller). */
export const DragGestures = {
  /** A finger (or the mouse) goes down at viewport point `point` at time `t` ms; it drags once it moves `slop`. */
  beginPan(point, t, slop = 0) {
    // A zoom settling back after a pinch goes on unless this touch becomes a drag (the other finger lifting last).
    if (this.animation?.ends !== 'zoom') this.stop();
    this.gesture = { kind: 'pan', start: { ...point }, last: { ...point }, raw: this.rawOffset(), slop, axes: null, pages: null };
    this.tracking = true;
    this.dragging = false;
    this.tracker.reset();
    this.tracker.add(t, point.x, point.y);
  },

  /** The offset before rubber-banding that shows as the current one (where the finger's 1:1 motion starts from). */
  rawOffset() {
    const sv = this.scrollView;
    const b = sv.boundsAt();
    return {
      x: inverseRubberBandClamp(sv.x, b.minX, b.maxX, sv.viewportSize.width),
      y: inverseRubberBandClamp(sv.y, b.minY, b.maxY, sv.viewportSize.height),
    };
  },

  /** The finger is at `point` at time `t`: past the slop, the touch-down point follows it 1:1. */
  pan(point, t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
    g.last = { ...point };
    this.tracker.add(t, point.x, point.y);
    const dx = point.x - g.start.x;
    const dy = point.y - g.start.y;
    if (!this.dragging && !this.beginDragging(dx, dy)) return;
    const sv = this.scrollView;
    const b = sv.boundsAt();
    const axis = (raw, delta, min, max, size) => {
      const value = raw - delta;
      return this.bounces ? rubberBandClamp(value, min, max, size) : Math.min(Math.max(value, min), max);
    };
    const x = g.axes.x ? axis(g.raw.x, dx, b.minX, b.maxX, sv.viewportSize.width) : sv.x;
    const y = g.axes.y ? axis(g.raw.y, dy, b.minY, b.maxY, sv.viewportSize.height) : sv.y;
    this.apply({ zoomScale: sv.zoomScale, x, y });
  },

  /**
   * The point the pan follows jumps to `point` without the content moving (a finger lands or lifts, and the pan
   * follows the fingers' midpoint): the drag goes on from there, its speed unchanged.
   */
  rebasePan(point, t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
    const dx = point.x - g.last.x;
    const dy = point.y - g.last.y;
    g.start = { x: g.start.x + dx, y: g.start.y + dy };
    g.last = { ...point };
    this.tracker.shift(dx, dy);
    this.tracker.add(t, point.x, point.y);
  },

  /** Starts dragging if the touch moved past the slop on an axis that may move; `false` while it stays a touch. */
  beginDragging(dx, dy) {
    const g = this.gesture;
    if (Math.hypot(dx, dy) <= g.slop || !this.isScrollEnabled) return false;
    const can = this.scrollView.scrollable;
    // An axis with no room moves only to rubber-band, which needs `bounces` as well as `alwaysBounce…`.
    const axes = { x: can.x || (this.bounces && this.alwaysBounceHorizontal), y: can.y || (this.bounces && this.alwaysBounceVertical) };
    if (this.isDirectionalLockEnabled) {
      if (Math.abs(dx) > LOCK_RATIO * Math.abs(dy)) axes.y = false;
      else if (Math.abs(dy) > LOCK_RATIO * Math.abs(dx)) axes.x = false;
    }
    if (!axes.x && !axes.y) return false;
    const a = this.animation;
    if (a) {
      // The zoom bounce jumps to its end so that the drag starts from a resting zoom.
      this.apply(a.transition.to);
      this.finish(a);
      g.raw = this.rawOffset();
    }
    g.axes = axes;
    const pages = this.pages();
    const sv = this.scrollView;
    g.pages = { x: Math.round(pages[0].position(sv.x)), y: Math.round(pages[1].position(sv.y)) };
    this.dragging = true;
    this.emit('willBeginDragging');
    return true;
  },

  /** The finger lifts at time `t`: `willEndDragging`, then deceleration (or a spring back, or a page) or rest. */
  endPan(t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
    this.gesture = null;
    this.tracking = false;
    if (this.dragging) {
      this.dragging = false;
      const v = this.tracker.velocity(t);
      this.release({ x: g.axes.x ? -v.x : 0, y: g.axes.y ? -v.y : 0 }, t, g.pages);
    }
    this.onChange();
  },

  /**
   * A drag ends because a pinch takes over: `willEndDragging` (no velocity; the target is where the content is, and
   * the pinch decides what happens next, so a changed target is ignored), then `didEndDragging(false)`.
   */
  endDragging() {
    if (!this.dragging) return;
    this.dragging = false;
    const sv = this.scrollView;
    this.emit('willEndDragging', { velocity: { x: 0, y: 0 }, targetContentOffset: { x: sv.x, y: sv.y } });
    this.emit('didEndDragging', { willDecelerate: false });
  },

  /** The pages of each axis at the current zoom: the box less `contentInset`, from the top-left resting offset. */
  pages() {
    const sv = this.scrollView;
    const b = sv.boundsAt();
    const size = sv.innerSize;
    return [new Pages(b.minX, b.maxX, size.width), new Pages(b.minY, b.maxY, size.height)];
  },

  /** After a drag: the delegate may move the rest point, then the content decelerates and bounces per axis. */
  release(velocity, t, startPages = null) {
    const sv = this.scrollView;
    // An axis with nowhere to scroll does not fly off; it only springs back.
    const can = sv.scrollable;
    let v = { x: can.x ? velocity.x : 0, y: can.y ? velocity.y : 0 };
    const from = { x: sv.x, y: sv.y };
    if (this.isPagingEnabled) return this.releaseToPage(from, v, t, startPages);
    const b = sv.boundsAt();
    const resting = restingOffset(from, v, this.rate);
    const settled = clampedOffset(resting, sv.contentSize, sv.zoomScale, sv.viewportSize, sv.insetAt());
    const detail = { velocity: { x: v.x / 1000, y: v.y / 1000 }, targetContentOffset: { ...settled } };
    this.emit('willEndDragging', detail);
    const target = detail.targetContentOffset;
    if (target.x !== settled.x || target.y !== settled.y) {
      // The velocity that decelerates from here to exactly the delegate's target (decelerationDistance inverted).
      const goal = sv.restingOffset({ x: Number(target.x), y: Number(target.y) });
      const k = ((1 - this.rate) / this.rate) * 1000;
      v = { x: (goal.x - from.x) * k, y: (goal.y - from.y) * k };
    }
    this.lastFlick = { from, velocity: v, resting: restingOffset(from, v, this.rate), settled: sv.restingOffset(restingOffset(from, v, this.rate)) };
    // An axis with no room rests where the fitted view does (its two bounds may differ in the last bit).
    const rest = sv.restingOffset({ x: 0, y: 0 });
    const [minX, maxX] = can.x ? [b.minX, b.maxX] : [rest.x, rest.x];
    const [minY, maxY] = can.y ? [b.minY, b.maxY] : [rest.y, rest.y];
    this.glide(from, t, [
      new AxisMotion({ position: sv.x, velocity: v.x, min: minX, max: maxX, rate: this.rate, bounces: this.bounces }),
      new AxisMotion({ position: sv.y, velocity: v.y, min: minY, max: maxY, rate: this.rate, bounces: this.bounces }),
    ]);
  },

  /**
   * Paging's release: the page each axis rests on (at most one from the page the drag began on) is the target the
   * delegate sees; as in UIKit, a paging scroll view ignores a changed target. The content glides there on a spring.
   */
  releaseToPage(from, v, t, startPages) {
    const sv = this.scrollView;
    const can = sv.scrollable;
    const rest = sv.restingOffset({ x: 0, y: 0 });
    const [px, py] = this.pages();
    const start = startPages ?? { x: Math.round(px.position(from.x)), y: Math.round(py.position(from.y)) };
    const target = {
      x: can.x ? px.offset(px.target(from.x, v.x, start.x)) : rest.x,
      y: can.y ? py.offset(py.target(from.y, v.y, start.y)) : rest.y,
    };
    this.emit('willEndDragging', { velocity: { x: v.x / 1000, y: v.y / 1000 }, targetContentOffset: fixedPoint(target) });
    this.lastFlick = { from, velocity: v, resting: { ...target }, settled: { ...target } };
    this.glide(from, t, [
      new PageMotion({ position: from.x, velocity: v.x, target: target.x }),
      new PageMotion({ position: from.y, velocity: v.y, target: target.y }),
    ]);
  },

  /** `didEndDragging`, then either rest at once or decelerate along `axes` (per-axis motions from `from`). */
  glide(from, t, axes) {
    const still = axes.every((a, i) => a.sample(0).done || (a.spring === null && Math.abs(a.resting - [from.x, from.y][i]) < STOP_DISTANCE));
    this.emit('didEndDragging', { willDecelerate: !still });
    if (still) return this.apply({ zoomScale: this.scrollView.zoomScale, x: axes[0].resting, y: axes[1].resting });
    this.decelerating = true;
    this.emit('willBeginDecelerating');
    this.animation = { kind: 'motion', start: t, axes, ends: 'decelerating' };
    this.onChange();
  },
};

/**
 * `point` as a target the delegate cannot move: its `x` and `y` read the page; writing them changes nothing and logs
 * UIKit's own complaint.
 */
function fixedPoint(point) {
  const fixed = {};
  for (const axis of ['x', 'y']) {
    Object.defineProperty(fixed, axis, {
      enumerable: true,
      get: () => point[axis],
      set: () => console.warn('Stop offset can not be modified for paging scroll views'),
    });
  }
  return fixed;
}
