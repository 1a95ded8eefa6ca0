// What gestures and calls do to a ScrollView, UIScrollView's way, and the delegate moments they produce: a touch
// tracks, becomes a drag after a small distance and then moves the content 1:1 under the finger (rubber-banded past
// the edges when `bounces`); on release the delegate may change where the flick comes to rest, then the content
// decelerates and bounces; a pinch or a wheel zoom stretches past the zoom limits (`bouncesZoom`) and settles back;
// programmatic and key moves animate. Pure: no DOM; time comes in as milliseconds and `step(now)` advances.

import { AxisMotion, VelocityTracker, inverseRubberBandClamp, rubberBand, rubberBandClamp, NORMAL_DECELERATION_RATE, STOP_DISTANCE } from './scroll-physics.js';
import { ZoomTransition, easeOut } from './zoom-transition.js';
import { ScrollView } from './scroll-view.js';
import { clampedOffset, restingOffset } from './zoom-math.js';

/** How far past its limits a pinch may stretch the zoom, as a natural logarithm (e^0.5 ≈ 1.65×). */
const ZOOM_STRETCH = 0.5;
/** Directional lock: a drag starting within this ratio of an axis (about 27°) moves along that axis only. */
const LOCK_RATIO = 2;

/**
 * @typedef {import('./zoom-transition.js').View} View
 * @typedef {{x: number, y: number}} Point
 * @typedef {{from: Point, velocity: Point, resting: Point, settled: Point}} Flick The last flick: where it started,
 *   the content velocity (points per second), ZoomMath's resting offset and where it settles once clamped.
 * @typedef {(name: string, detail?: object) => void} Emit Receives UIKit's delegate moments by name
 *   (`willBeginDragging`, `didScroll`, …); a `willEndDragging` detail's `targetContentOffset` may be changed.
 */

/**
 * Drives a {@link ScrollView} from gestures, calls and animations, and reports UIScrollView's delegate sequence.
 */
export class ScrollController {
  /**
   * @param {ScrollView} scrollView
   * @param {{onChange?: () => void, emit?: Emit, rate?: number}} [options] `onChange` runs after every change.
   */
  constructor(scrollView, { onChange = () => {}, emit = () => {}, rate = NORMAL_DECELERATION_RATE } = {}) {
    this.scrollView = scrollView;
    this.onChange = onChange;
    this.emit = emit;
    this.rate = rate;
    this.bounces = true;
    this.alwaysBounceHorizontal = false;
    this.alwaysBounceVertical = false;
    this.bouncesZoom = true;
    this.isScrollEnabled = true;
    this.isDirectionalLockEnabled = false;
    this.tracker = new VelocityTracker();
    this.gesture = null;
    this.animation = null;
    this.tracking = false;
    this.dragging = false;
    this.decelerating = false;
    this.zooming = false;
    /** @type {Flick | null} */
    this.lastFlick = null;
  }

  /** Whether no gesture or animation is under way. */
  get isIdle() {
    return this.gesture === null && this.animation === null;
  }

  /** Whether the zoom is springing back into its limits. */
  get zoomBouncing() {
    return this.animation?.ends === 'zoom' && this.animation.bouncing;
  }

  /** Where the view is heading: the end of the current animation, else the current view. @returns {View} */
  get targetView() {
    const a = this.animation;
    if (a?.kind === 'transition') return { ...a.transition.to };
    if (a?.kind === 'motion') return { zoomScale: this.scrollView.zoomScale, x: a.axes[0].resting, y: a.axes[1].resting };
    return this.scrollView.view;
  }

  /** Stops any animation where it is (a caught flick sends no `didEndDecelerating`, as UIKit). */
  stop() {
    this.animation = null;
    this.decelerating = false;
  }

  /** Sets the view at once, clamped to where it may rest (deep links, resizes). @param {View} view */
  setView(view) {
    this.stop();
    this.apply(this.scrollView.restingView(view));
  }

  /** A finger (or the mouse) goes down at viewport point `point` at time `t` ms; it drags once it moves `slop`. */
  beginPan(point, t, slop = 0) {
    // A zoom settling back after a pinch goes on unless this touch becomes a drag (the other finger lifting last).
    if (this.animation?.ends !== 'zoom') this.stop();
    const sv = this.scrollView;
    const b = sv.boundsAt();
    const raw = {
      x: inverseRubberBandClamp(sv.x, b.minX, b.maxX, sv.viewportSize.width),
      y: inverseRubberBandClamp(sv.y, b.minY, b.maxY, sv.viewportSize.height),
    };
    this.gesture = { kind: 'pan', start: { ...point }, raw, slop, axes: null };
    this.tracking = true;
    this.dragging = false;
    this.tracker.reset();
    this.tracker.add(t, point.x, point.y);
  }

  /** The finger is at `point` at time `t`: past the slop, the touch-down point follows it 1:1. */
  pan(point, t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
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
  }

  /** Starts dragging if the touch moved past the slop on an axis that may move; `false` while it stays a touch. */
  beginDragging(dx, dy) {
    const g = this.gesture;
    if (Math.hypot(dx, dy) <= g.slop || !this.isScrollEnabled) return false;
    const can = this.scrollView.scrollable;
    const axes = { x: can.x || this.alwaysBounceHorizontal, y: can.y || this.alwaysBounceVertical };
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
      const sv = this.scrollView;
      const b = sv.boundsAt();
      g.raw = { x: inverseRubberBandClamp(sv.x, b.minX, b.maxX, sv.viewportSize.width), y: inverseRubberBandClamp(sv.y, b.minY, b.maxY, sv.viewportSize.height) };
    }
    g.axes = axes;
    this.dragging = true;
    this.emit('willBeginDragging');
    return true;
  }

  /** The finger lifts at time `t`: `willEndDragging`, then deceleration (or a spring back) or rest. */
  endPan(t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
    this.gesture = null;
    this.tracking = false;
    if (!this.dragging) return;
    this.dragging = false;
    const v = this.tracker.velocity(t);
    const velocity = { x: g.axes.x ? -v.x : 0, y: g.axes.y ? -v.y : 0 };
    this.release(velocity, t);
  }

  /** After a drag: the delegate may move the rest point, then the content decelerates and bounces per axis. */
  release(velocity, t) {
    const sv = this.scrollView;
    const b = sv.boundsAt();
    // An axis with nowhere to scroll does not fly off; it only springs back.
    const can = sv.scrollable;
    let v = { x: can.x ? velocity.x : 0, y: can.y ? velocity.y : 0 };
    const from = { x: sv.x, y: sv.y };
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
    const axes = [
      new AxisMotion({ position: sv.x, velocity: v.x, min: minX, max: maxX, rate: this.rate, bounces: this.bounces }),
      new AxisMotion({ position: sv.y, velocity: v.y, min: minY, max: maxY, rate: this.rate, bounces: this.bounces }),
    ];
    const still = axes.every((a, i) => a.sample(0).done || (a.spring === null && Math.abs(a.resting - [from.x, from.y][i]) < STOP_DISTANCE));
    this.emit('didEndDragging', { willDecelerate: !still });
    if (still) return this.apply({ zoomScale: sv.zoomScale, x: axes[0].resting, y: axes[1].resting });
    this.decelerating = true;
    this.emit('willBeginDecelerating');
    this.animation = { kind: 'motion', start: t, axes, ends: 'decelerating' };
    this.onChange();
  }

  /** Two fingers at `a` and `b` start a pinch at time `t`. */
  beginPinch(a, b, t) {
    this.stop();
    if (this.dragging) {
      this.dragging = false;
      this.emit('didEndDragging', { willDecelerate: false });
    }
    this.tracking = true;
    const mid = midpoint(a, b);
    this.gesture = { kind: 'pinch', distance: distance(a, b), zoomScale: this.scrollView.zoomScale, anchor: this.scrollView.imagePointAt(mid), mid };
    this.beginZooming();
  }

  /** The pinching fingers are at `a` and `b`: zoom by their spread, keeping the image point between them there. */
  pinch(a, b) {
    const g = this.gesture;
    if (g?.kind !== 'pinch') return;
    const sv = this.scrollView;
    g.mid = midpoint(a, b);
    const zoomScale = this.stretchedZoom(g.zoomScale * (distance(a, b) / Math.max(g.distance, 1)));
    const bounds = sv.boundsAt(zoomScale);
    const x = rubberBandClamp(g.anchor.x * zoomScale - g.mid.x, bounds.minX, bounds.maxX, sv.viewportSize.width);
    const y = rubberBandClamp(g.anchor.y * zoomScale - g.mid.y, bounds.minY, bounds.maxY, sv.viewportSize.height);
    this.apply({ zoomScale, x, y });
  }

  /** The pinch ends at time `t`: an overshooting zoom springs back around the last midpoint. */
  endPinch(t) {
    const g = this.gesture;
    if (g?.kind !== 'pinch') return;
    this.gesture = null;
    this.tracking = false;
    this.endZooming(g.mid, t);
  }

  /**
   * Zooms by `factor` around viewport point `anchor` (wheel, trackpad pinch, Safari gestures), stretching past the
   * limits when `bouncesZoom`; a burst of calls is one zooming gesture, ended by {@link ScrollController#endWheelZoom}.
   */
  zoomAt(factor, anchor) {
    const sv = this.scrollView;
    if (this.gesture?.kind !== 'wheel') {
      this.stop();
      this.gesture = { kind: 'wheel', raw: sv.zoomScale, anchor };
      this.beginZooming();
    }
    const g = this.gesture;
    g.raw *= factor;
    g.anchor = anchor;
    const zoomScale = this.stretchedZoom(g.raw);
    const offset = zoomScale === sv.zoomScale ? sv.view : ScrollView.offsetZoomedAround(sv.view, zoomScale, anchor);
    this.apply({ zoomScale, ...sv.restingOffset({ x: offset.x, y: offset.y }, zoomScale) });
  }

  /** The wheel has been still for a while (or a Safari gesture ended): settle back into the limits. */
  endWheelZoom(t) {
    const g = this.gesture;
    if (g?.kind !== 'wheel') return;
    this.gesture = null;
    this.endZooming(g.anchor, t);
  }

  beginZooming() {
    this.zooming = true;
    this.emit('willBeginZooming');
  }

  /** Ends a zooming gesture: `didEndZooming` at once if at rest, else after springing back around `anchor`. */
  endZooming(anchor, t) {
    const sv = this.scrollView;
    const rest = sv.restingView(sv.view, anchor);
    if (rest.zoomScale === sv.zoomScale && rest.x === sv.x && rest.y === sv.y) return this.finishZooming();
    this.startTransition(rest, t, 320, undefined, 'zoom');
    this.animation.bouncing = rest.zoomScale !== sv.zoomScale;
  }

  finishZooming() {
    this.zooming = false;
    this.emit('didEndZooming', { atScale: this.scrollView.zoomScale });
  }

  /** Scrolls by (`dx`, `dy`) points at once, within the bounds (wheel without zoom). */
  scrollBy(dx, dy) {
    if (!this.isScrollEnabled) return;
    this.stop();
    const sv = this.scrollView;
    this.apply({ zoomScale: sv.zoomScale, ...sv.restingOffset({ x: sv.x + dx, y: sv.y + dy }) });
  }

  /** Animates a zoom by `factor` around viewport point `anchor` (double-tap, keys), within the limits. */
  zoomBy(factor, anchor, t) {
    this.animateTo(this.scrollView.zoomedByView(factor, anchor, this.targetView), t);
  }

  /** Animates back to the aspect-fit view. */
  fit(t) {
    this.animateTo(this.scrollView.fitView, t);
  }

  /** Animates a scroll by (`dx`, `dy`) points, within the bounds (arrow keys). */
  panBy(dx, dy, t) {
    const target = this.targetView;
    const offset = this.scrollView.restingOffset({ x: target.x + dx, y: target.y + dy }, target.zoomScale);
    this.animateTo({ zoomScale: target.zoomScale, ...offset }, t, 200, easeOut);
  }

  /** Moves the view at once so that image point `p` is at the centre of the inner area (navigator). */
  centreOn(p) {
    this.stop();
    const sv = this.scrollView;
    const c = sv.centre;
    this.apply({ zoomScale: sv.zoomScale, ...sv.restingOffset({ x: p.x * sv.zoomScale - c.x, y: p.y * sv.zoomScale - c.y }) });
  }

  /** Moves to `view` as given: at once (one `didScroll`), or animated ending in `didEndScrollingAnimation`. */
  moveTo(view, animated, t) {
    if (animated) return this.animateTo(view, t);
    this.stop();
    this.apply(view);
  }

  /** Starts an animated transition to `view` that ends with `didEndScrollingAnimation` (nothing if already there). */
  animateTo(view, t, duration = 320, curve = undefined) {
    const from = this.scrollView.view;
    if (from.zoomScale === view.zoomScale && from.x === view.x && from.y === view.y) return this.stop();
    this.stop();
    this.startTransition(view, t, duration, curve, 'scrollingAnimation');
  }

  startTransition(view, t, duration, curve, ends) {
    this.animation = { kind: 'transition', start: t, transition: new ZoomTransition(this.scrollView.view, view, duration, curve), ends };
    this.onChange();
  }

  /**
   * Advances the animation to time `now` ms.
   * @returns {boolean} Whether an animation is still running.
   */
  step(now) {
    const a = this.animation;
    if (!a) return false;
    // Input events can be stamped after the frame that handles them begins.
    const t = Math.max(0, now - a.start);
    let done;
    if (a.kind === 'transition') {
      const s = a.transition.sample(t);
      done = s.done;
      this.apply({ zoomScale: s.zoomScale, x: s.x, y: s.y });
    } else {
      const x = a.axes[0].sample(t);
      const y = a.axes[1].sample(t);
      done = x.done && y.done;
      this.apply({ zoomScale: this.scrollView.zoomScale, x: x.position, y: y.position });
    }
    if (done && this.animation === a) this.finish(a);
    return this.animation !== null;
  }

  /** An animation reached its end: the matching delegate moment. */
  finish(a) {
    this.animation = null;
    if (a.ends === 'decelerating') {
      this.decelerating = false;
      this.emit('didEndDecelerating');
    } else if (a.ends === 'zoom') {
      this.finishZooming();
    } else {
      this.emit('didEndScrollingAnimation');
    }
  }

  /** A zoom scale past the limits, stretched with rubber-band resistance in log space (clamped without bouncesZoom). */
  stretchedZoom(zoomScale) {
    const sv = this.scrollView;
    const max = sv.maximumZoomScale;
    const min = sv.minimumZoomScale;
    if (!this.bouncesZoom) return sv.clampZoom(zoomScale);
    if (zoomScale > max) return max * Math.exp(rubberBand(Math.log(zoomScale / max), ZOOM_STRETCH));
    if (zoomScale < min) return min / Math.exp(rubberBand(Math.log(min / zoomScale), ZOOM_STRETCH));
    return zoomScale;
  }

  /** Sets the scroll view's view and reports the change (`didScroll`, then `didZoom` if the zoom changed). */
  apply(view) {
    const sv = this.scrollView;
    const zoomed = view.zoomScale !== sv.zoomScale;
    const moved = zoomed || view.x !== sv.x || view.y !== sv.y;
    sv.setView(view);
    this.onChange();
    if (moved) this.emit('didScroll');
    if (zoomed) this.emit('didZoom');
  }
}

function midpoint(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

function distance(a, b) {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
