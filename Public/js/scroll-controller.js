// What gestures do to a ScrollView, UIScrollView's way: a drag moves the content 1:1 under the finger (rubber-
// banded past the edges); on release it decelerates from the finger's velocity and bounces on the edges; a pinch
// zooms around its midpoint, may overshoot the zoom limits with resistance and springs back; discrete zooms and
// key presses animate. Pure: no DOM; time comes in as milliseconds and `step(now)` advances animations.

import { AxisMotion, VelocityTracker, inverseRubberBandClamp, rubberBand, rubberBandClamp, NORMAL_DECELERATION_RATE } from './scroll-physics.js';
import { ZoomTransition, easeOut } from './zoom-transition.js';
import { ScrollView } from './scroll-view.js';
import { clampedOffset, restingOffset } from './zoom-math.js';

/** How far past its limits a pinch may stretch the zoom, as a natural logarithm (e^0.5 ≈ 1.65×). */
const ZOOM_STRETCH = 0.5;

/**
 * @typedef {import('./zoom-transition.js').View} View
 * @typedef {{x: number, y: number}} Point
 * @typedef {{from: Point, velocity: Point, resting: Point, settled: Point}} Flick The last flick: where it started,
 *   the content velocity (points per second), ZoomMath's resting offset and where it settles once clamped.
 */

/**
 * Drives a {@link ScrollView} from gestures and animations.
 */
export class ScrollController {
  /**
   * @param {ScrollView} scrollView
   * @param {{onChange?: () => void, rate?: number}} [options] `onChange` runs after every change of the view.
   */
  constructor(scrollView, { onChange = () => {}, rate = NORMAL_DECELERATION_RATE } = {}) {
    this.scrollView = scrollView;
    this.onChange = onChange;
    this.rate = rate;
    this.tracker = new VelocityTracker();
    this.gesture = null;
    this.animation = null;
    /** @type {Flick | null} */
    this.lastFlick = null;
  }

  /** Whether no gesture or animation is under way. */
  get isIdle() {
    return this.gesture === null && this.animation === null;
  }

  /** Where the view is heading: the end of the current animation, else the current view. @returns {View} */
  get targetView() {
    const a = this.animation;
    if (a?.kind === 'transition') return { ...a.transition.to };
    if (a?.kind === 'motion') return { zoomScale: this.scrollView.zoomScale, x: a.axes[0].resting, y: a.axes[1].resting };
    return this.scrollView.view;
  }

  /** Stops any animation where it is. */
  stop() {
    this.animation = null;
  }

  /** Sets the view at once, clamped to where it may rest (deep links, tests). @param {View} view */
  setView(view) {
    this.stop();
    this.gesture = null;
    this.apply(this.scrollView.restingView(view));
  }

  /** A finger (or the mouse) goes down at viewport point `point` at time `t` ms and starts to drag. */
  beginPan(point, t) {
    this.stop();
    const sv = this.scrollView;
    const b = sv.boundsAt();
    const raw = {
      x: inverseRubberBandClamp(sv.x, b.minX, b.maxX, sv.viewportSize.width),
      y: inverseRubberBandClamp(sv.y, b.minY, b.maxY, sv.viewportSize.height),
    };
    this.gesture = { kind: 'pan', start: { ...point }, raw };
    this.tracker.reset();
    this.tracker.add(t, point.x, point.y);
  }

  /** The dragging finger is at `point` at time `t`: the content follows it 1:1 (rubber-banded past the edges). */
  pan(point, t) {
    const g = this.gesture;
    if (g?.kind !== 'pan') return;
    const sv = this.scrollView;
    const b = sv.boundsAt();
    const x = rubberBandClamp(g.raw.x - (point.x - g.start.x), b.minX, b.maxX, sv.viewportSize.width);
    const y = rubberBandClamp(g.raw.y - (point.y - g.start.y), b.minY, b.maxY, sv.viewportSize.height);
    this.tracker.add(t, point.x, point.y);
    this.apply({ zoomScale: sv.zoomScale, x, y });
  }

  /** The finger lifts at time `t`: the content decelerates from its velocity, or springs back. */
  endPan(t) {
    if (this.gesture?.kind !== 'pan') return;
    const v = this.tracker.velocity(t);
    this.gesture = null;
    this.release({ x: -v.x, y: -v.y }, this.scrollView.centre, t);
  }

  /** Two fingers at `a` and `b` start a pinch at time `t`. */
  beginPinch(a, b, t) {
    this.stop();
    const mid = midpoint(a, b);
    this.gesture = { kind: 'pinch', distance: distance(a, b), zoomScale: this.scrollView.zoomScale, anchor: this.scrollView.imagePointAt(mid), mid };
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
    this.release({ x: 0, y: 0 }, g.mid, t);
  }

  /** Zooms by `factor` around viewport point `anchor` at once, within the limits (wheel, trackpad). */
  zoomAt(factor, anchor) {
    this.stop();
    const sv = this.scrollView;
    const zoomScale = sv.clampZoom(sv.zoomScale * factor);
    const offset = zoomScale === sv.zoomScale ? sv.view : ScrollView.offsetZoomedAround(sv.view, zoomScale, anchor);
    this.apply({ zoomScale, ...sv.restingOffset({ x: offset.x, y: offset.y }, zoomScale) });
  }

  /** Scrolls by (`dx`, `dy`) points at once, within the bounds (wheel without zoom). */
  scrollBy(dx, dy) {
    this.stop();
    const sv = this.scrollView;
    this.apply({ zoomScale: sv.zoomScale, ...sv.restingOffset({ x: sv.x + dx, y: sv.y + dy }) });
  }

  /** Animates a zoom by `factor` around viewport point `anchor` via zoom-to-rect (double-tap, keys). */
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

  /** Moves the view at once so that image point `p` is at the viewport centre, within the bounds (navigator). */
  centreOn(p) {
    this.stop();
    const sv = this.scrollView;
    const offset = { x: p.x * sv.zoomScale - sv.viewportSize.width / 2, y: p.y * sv.zoomScale - sv.viewportSize.height / 2 };
    this.apply({ zoomScale: sv.zoomScale, ...sv.restingOffset(offset) });
  }

  /** Starts an animated transition from the current view to `view`. */
  animateTo(view, t, duration = 320, curve = undefined) {
    const from = this.scrollView.view;
    this.gesture = null;
    if (from.zoomScale === view.zoomScale && from.x === view.x && from.y === view.y) return this.stop();
    this.animation = { kind: 'transition', start: t, transition: new ZoomTransition(from, view, duration, curve) };
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
    if (a.kind === 'transition') {
      const s = a.transition.sample(t);
      if (s.done) this.animation = null;
      this.apply(s);
    } else {
      const x = a.axes[0].sample(t);
      const y = a.axes[1].sample(t);
      if (x.done && y.done) this.animation = null;
      this.apply({ zoomScale: this.scrollView.zoomScale, x: x.position, y: y.position });
    }
    return this.animation !== null;
  }

  /** After a gesture: back into the zoom limits by a transition, else decelerate and bounce per axis. */
  release(velocity, anchor, t) {
    const sv = this.scrollView;
    if (sv.clampZoom(sv.zoomScale) !== sv.zoomScale) return this.animateTo(sv.restingView(sv.view, anchor), t);
    const b = sv.boundsAt();
    // An axis with nowhere to scroll does not fly off; it only springs back.
    const v = { x: b.minX === b.maxX ? 0 : velocity.x, y: b.minY === b.maxY ? 0 : velocity.y };
    const from = { x: sv.x, y: sv.y };
    const resting = restingOffset(from, v, this.rate);
    const settled = clampedOffset(resting, sv.contentSize, sv.zoomScale, sv.viewportSize, sv.insetAt());
    this.lastFlick = { from, velocity: v, resting, settled };
    const axes = [
      new AxisMotion({ position: sv.x, velocity: v.x, min: b.minX, max: b.maxX, rate: this.rate }),
      new AxisMotion({ position: sv.y, velocity: v.y, min: b.minY, max: b.maxY, rate: this.rate }),
    ];
    this.animation = { kind: 'motion', start: t, axes };
    this.onChange();
  }

  /** A pinch's zoom scale past the limits, stretched with rubber-band resistance in log space. */
  stretchedZoom(zoomScale) {
    const sv = this.scrollView;
    const max = sv.maximumZoomScale;
    const min = sv.minimumZoomScale;
    if (zoomScale > max) return max * Math.exp(rubberBand(Math.log(zoomScale / max), ZOOM_STRETCH));
    if (zoomScale < min) return min / Math.exp(rubberBand(Math.log(min / zoomScale), ZOOM_STRETCH));
    return zoomScale;
  }

  /** Sets the scroll view's view and reports the change. */
  apply(view) {
    this.scrollView.setView(view);
    this.onChange();
  }
}

function midpoint(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

function distance(a, b) {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
