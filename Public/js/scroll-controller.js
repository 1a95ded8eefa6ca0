// What gestures and calls do to a ScrollView, UIScrollView's way, and the delegate moments they produce. This file
// holds the state, the moves made from code and keys, and the animations; the touch and drag handling is in
// scroll-controller-drag.js, pinch and wheel zooms in scroll-controller-zoom.js (both extend this class). Programmatic
// and key moves animate; an animation that changes the zoom is a zoom to the delegate (`willBeginZooming`, then
// `didEndZooming`), one that only scrolls ends in `didEndScrollingAnimation`. Pure: no DOM; time comes in as
// milliseconds and `step(now)` advances.

import { VelocityTracker, NORMAL_DECELERATION_RATE } from './scroll-physics.js';
import { ZoomTransition, easeOut } from './zoom-transition.js';
import { DragGestures } from './scroll-controller-drag.js';
import { ZoomGestures } from './scroll-controller-zoom.js';

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
 * @typedef {import('./scroll-view.js').ScrollView} ScrollView
 */
export class ScrollController {
  /**
   * @param {ScrollView} scrollView
   * @param {{onChange?: () => void, emit?: Emit, rate?: number}} [options] `onChange` runs after every change of the
   *   view and whenever a touch ends.
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
    this.isPagingEnabled = false;
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

  /** Whether the zoom can change at all: as in UIKit, only when `maximumZoomScale > minimumZoomScale`. */
  get zoomEnabled() {
    return this.scrollView.maximumZoomScale > this.scrollView.minimumZoomScale;
  }

  /** Where the view is heading: the end of the current animation, else the current view. @returns {View} */
  get targetView() {
    const a = this.animation;
    if (a?.kind === 'transition') return { ...a.transition.to };
    if (a?.kind === 'motion') return { zoomScale: this.scrollView.zoomScale, x: a.axes[0].resting, y: a.axes[1].resting };
    return this.scrollView.view;
  }

  /**
   * Where the current animation will have taken the view at time `t` ms (unless interrupted), or `null` when none
   * runs: a flick's deceleration and every animated scroll or zoom know their path from their start.
   * @returns {View | null}
   */
  animatedViewAt(t) {
    const a = this.animation;
    if (!a) return null;
    const elapsed = Math.max(0, t - a.start);
    if (a.kind === 'transition') {
      const s = a.transition.sample(elapsed);
      return { zoomScale: s.zoomScale, x: s.x, y: s.y };
    }
    return { zoomScale: this.scrollView.zoomScale, x: a.axes[0].sample(elapsed).position, y: a.axes[1].sample(elapsed).position };
  }

  /**
   * Stops any animation where it is. A caught flick or scrolling animation sends nothing more, as UIKit; a zoom
   * (animated from code, or a pinch settling back) still ends with `didEndZooming`: every `willBeginZooming` gets
   * its end.
   */
  stop() {
    const a = this.animation;
    this.animation = null;
    this.decelerating = false;
    if (a?.ends === 'codeZoom') this.emit('didEndZooming', { atScale: this.scrollView.zoomScale });
    else if (a?.ends === 'zoom') this.finishZooming();
  }

  /** Sets the view at once, clamped to where it may rest (deep links, resizes). @param {View} view */
  setView(view) {
    this.stop();
    this.apply(this.scrollView.restingView(view));
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

  /** Animates a scroll by (`dx`, `dy`) points, within the bounds (arrow keys); nothing unless `isScrollEnabled`. */
  panBy(dx, dy, t) {
    if (!this.isScrollEnabled) return;
    const target = this.targetView;
    const offset = this.scrollView.restingOffset({ x: target.x + dx, y: target.y + dy }, target.zoomScale);
    this.animateTo({ zoomScale: target.zoomScale, ...offset }, t, 200, easeOut);
  }

  /** Whether the content is at its top (the smallest resting `y`), or heading there. */
  get isAtTop() {
    const target = this.targetView;
    return Math.abs(target.y - this.scrollView.boundsAt(target.zoomScale).minY) < 1e-6;
  }

  /**
   * Animates to the top of the content, `x` and the zoom unchanged, ending with `didScrollToTop` (UIKit's
   * status-bar tap). The caller checks `scrollsToTop` and asks the delegate.
   * @returns {boolean} Whether it scrolls (not when already at the top).
   */
  scrollToTop(t) {
    if (this.isAtTop) return false;
    const target = this.targetView;
    const minY = this.scrollView.boundsAt(target.zoomScale).minY;
    const top = this.scrollView.restingOffset({ x: target.x, y: minY }, target.zoomScale);
    this.stop();
    this.startTransition({ zoomScale: target.zoomScale, ...top }, t, 320, undefined, 'scrollToTop');
    return true;
  }

  /** Moves the view at once so that image point `p` is at the centre of the inner area (navigator). */
  centreOn(p) {
    this.stop();
    const sv = this.scrollView;
    const c = sv.centre;
    this.apply({ zoomScale: sv.zoomScale, ...sv.restingOffset({ x: p.x * sv.zoomScale - c.x, y: p.y * sv.zoomScale - c.y }) });
  }

  /** Moves to `view` as given: at once (one `didScroll`, and `didZoom` if the zoom changed), or animated. */
  moveTo(view, animated, t) {
    if (animated) return this.animateTo(view, t);
    this.stop();
    this.apply(view);
  }

  /**
   * Starts an animated transition to `view` (nothing if already there). A change of zoom is a zoom to the delegate:
   * `willBeginZooming` now, `didEndZooming(atScale)` at the end; a scroll alone ends with `didEndScrollingAnimation`.
   * `isZooming` stays false: it is the gestures' flag.
   */
  animateTo(view, t, duration = 320, curve = undefined) {
    const from = this.scrollView.view;
    if (from.zoomScale === view.zoomScale && from.x === view.x && from.y === view.y) return this.stop();
    this.stop();
    const zooms = view.zoomScale !== from.zoomScale;
    if (zooms) this.emit('willBeginZooming');
    this.startTransition(view, t, duration, curve, zooms ? 'codeZoom' : 'scrollingAnimation');
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
    } else if (a.ends === 'codeZoom') {
      this.emit('didEndZooming', { atScale: this.scrollView.zoomScale });
    } else if (a.ends === 'scrollToTop') {
      this.emit('didScrollToTop');
    } else {
      this.emit('didEndScrollingAnimation');
    }
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

// The gestures, each concern in a file of its own (as a Swift extension would be).
Object.assign(ScrollController.prototype, DragGestures, ZoomGestures);
