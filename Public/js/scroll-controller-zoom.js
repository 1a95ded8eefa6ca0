// ScrollController's zooming gestures, UIScrollView's way: two fingers pan together at their midpoint until the
// distance between them changes (UIPinchGestureRecognizer's hysteresis), then pinch — the zoom follows their spread
// from where they landed, around the image point between them; a wheel or trackpad zoom is a burst of steps. Both
// stretch past the zoom limits (`bouncesZoom`) and settle back. Nothing zooms when the limits are equal.

import { rubberBand, rubberBandClamp } from './scroll-physics.js';
import { ScrollView } from './scroll-view.js';

/** How far past its limits a pinch may stretch the zoom, as a natural logarithm (e^0.5 ≈ 1.65×). */
const ZOOM_STRETCH = 0.5;
/** Two fingers pinch once the distance between them has changed by more than this many points. */
export const PINCH_SLOP = 8;

/** The zoom methods of {@link ScrollController} (installed on its prototype; `this` is the controller). */
export const ZoomGestures = {
  /**
   * A second finger lands (`a` and `b` are both fingers): the pan goes on at their midpoint without a jump, or
   * starts there if the first finger was not panning (`panMinimumTouches` 2).
   */
  addFinger(a, b, t, slop = 0) {
    const mid = midpoint(a, b);
    if (this.gesture?.kind === 'pan') this.rebasePan(mid, t);
    else this.beginPan(mid, t, slop);
    this.gesture.fingers = { distance: distance(a, b) };
  },

  /** Two fingers move: a pinch once their distance has changed by more than {@link PINCH_SLOP}, else a pan. */
  moveFingers(a, b, t) {
    const g = this.gesture;
    if (g?.kind === 'pinch') return this.pinch(a, b);
    if (g?.kind !== 'pan') return;
    const landed = g.fingers?.distance ?? distance(a, b);
    if (this.zoomEnabled && Math.abs(distance(a, b) - landed) > PINCH_SLOP) return this.beginPinch(a, b, t, landed);
    this.pan(midpoint(a, b), t);
  },

  /**
   * One of two fingers lifts; `rest` is the other. A pinch ends (settling back into the limits) and `rest` starts a
   * new pan; a two-finger pan goes on under `rest`. With `continues` false (`panMinimumTouches` 2) the pan ends.
   */
  liftFinger(rest, t, { slop = 0, continues = true } = {}) {
    const g = this.gesture;
    if (g?.kind === 'pinch') {
      this.endPinch(t);
      if (continues) this.beginPan(rest, t, slop);
      return;
    }
    if (g?.kind !== 'pan') return;
    g.fingers = null;
    if (continues) this.rebasePan(rest, t);
    else this.endPan(t);
  },

  /**
   * Two fingers at `a` and `b` start a pinch at time `t`; a drag under way ends (through `willEndDragging`). The
   * zoom is the spread relative to `landedDistance` (the distance when they landed), as UIPinchGestureRecognizer's
   * scale, around the image point now between them.
   */
  beginPinch(a, b, t, landedDistance = distance(a, b)) {
    this.stop();
    this.endDragging();
    this.tracking = true;
    const mid = midpoint(a, b);
    const sv = this.scrollView;
    this.gesture = { kind: 'pinch', distance: landedDistance, zoomScale: sv.zoomScale, anchor: sv.imagePointAt(mid), mid };
    this.beginZooming();
    this.pinch(a, b);
  },

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
  },

  /** The pinch ends at time `t`: an overshooting zoom springs back around the last midpoint. */
  endPinch(t) {
    const g = this.gesture;
    if (g?.kind !== 'pinch') return;
    this.gesture = null;
    this.tracking = false;
    this.endZooming(g.mid, t);
    this.onChange();
  },

  /**
   * Zooms by `factor` around viewport point `anchor` (wheel, trackpad pinch, Safari gestures), stretching past the
   * limits when `bouncesZoom`; a burst of calls is one zooming gesture, ended by {@link ScrollController#endWheelZoom}.
   * Nothing when the zoom limits are equal.
   */
  zoomAt(factor, anchor) {
    const sv = this.scrollView;
    if (this.gesture?.kind !== 'wheel') {
      if (!this.zoomEnabled) return;
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
  },

  /** The wheel has been still for a while (or a Safari gesture ended): settle back into the limits. */
  endWheelZoom(t) {
    const g = this.gesture;
    if (g?.kind !== 'wheel') return;
    this.gesture = null;
    this.endZooming(g.anchor, t);
  },

  /** A zooming gesture begins: `isZooming`, `willBeginZooming`. */
  beginZooming() {
    this.zooming = true;
    this.emit('willBeginZooming');
  },

  /** Ends a zooming gesture: `didEndZooming` at once if at rest, else after springing back around `anchor`. */
  endZooming(anchor, t) {
    const sv = this.scrollView;
    const rest = sv.restingView(sv.view, anchor);
    if (rest.zoomScale === sv.zoomScale && rest.x === sv.x && rest.y === sv.y) return this.finishZooming();
    this.startTransition(rest, t, 320, undefined, 'zoom');
    this.animation.bouncing = rest.zoomScale !== sv.zoomScale;
  },

  /** The zooming gesture is over: `didEndZooming(atScale)`. */
  finishZooming() {
    this.zooming = false;
    this.emit('didEndZooming', { atScale: this.scrollView.zoomScale });
  },

  /** A zoom scale past the limits, stretched with rubber-band resistance in log space (clamped without bouncesZoom). */
  stretchedZoom(zoomScale) {
    const sv = this.scrollView;
    const max = sv.maximumZoomScale;
    const min = sv.minimumZoomScale;
    if (!this.bouncesZoom) return sv.clampZoom(zoomScale);
    if (zoomScale > max) return max * Math.exp(rubberBand(Math.log(zoomScale / max), ZOOM_STRETCH));
    if (zoomScale < min) return min / Math.exp(rubberBand(Math.log(min / zoomScale), ZOOM_STRETCH));
    return zoomScale;
  },
};

function midpoint(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

function distance(a, b) {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
