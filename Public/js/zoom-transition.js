// An animated change of zoom scale and content offset, as UIScrollView animates zoom(to:): the zoom scale moves
// geometrically and the offset follows so that one viewport point — the fixed point of the whole change — stays
// put. A double-click at a point therefore zooms around that point on every frame, not just at the end.

/**
 * @typedef {{zoomScale: number, x: number, y: number}} View A zoom scale (points per image pixel) and a content
 *   offset (points).
 */

/** UIKit's default animation curve, ease-in-out, for `p` in [0, 1]. */
export function easeInOut(p) {
  return p < 0.5 ? 4 * p * p * p : 1 - (-2 * p + 2) ** 3 / 2;
}

/** Ease-out, for motions that start from a standing input (keys). */
export function easeOut(p) {
  return 1 - (1 - p) ** 3;
}

/**
 * A transition from one view to another over `duration` ms.
 */
export class ZoomTransition {
  /**
   * @param {View} from
   * @param {View} to
   * @param {number} [duration] Milliseconds (> 0).
   * @param {(p: number) => number} [curve] Maps linear progress to eased progress.
   */
  constructor(from, to, duration = 320, curve = easeInOut) {
    this.from = { ...from };
    this.to = { ...to };
    this.duration = duration;
    this.curve = curve;
    this.ratio = to.zoomScale / from.zoomScale;
    // Viewport point s with (s + x0) · ratio − s = x1 stays fixed; a near-pure pan has no useful fixed point.
    this.pans = Math.abs(this.ratio - 1) < 1e-6;
    if (!this.pans) {
      this.fixedX = (from.x * this.ratio - to.x) / (1 - this.ratio);
      this.fixedY = (from.y * this.ratio - to.y) / (1 - this.ratio);
    }
  }

  /** The viewport point that stays fixed, or `null` for a pan. */
  get fixedPoint() {
    return this.pans ? null : { x: this.fixedX, y: this.fixedY };
  }

  /**
   * The view `t` ms after the start; exactly `to` once done.
   * @returns {View & {done: boolean}}
   */
  sample(t) {
    if (t >= this.duration) return { ...this.to, done: true };
    const p = this.curve(Math.max(0, t) / this.duration);
    if (this.pans) {
      const zoomScale = this.from.zoomScale + (this.to.zoomScale - this.from.zoomScale) * p;
      return { zoomScale, x: this.from.x + (this.to.x - this.from.x) * p, y: this.from.y + (this.to.y - this.from.y) * p, done: false };
    }
    const k = this.ratio ** p;
    return {
      zoomScale: this.from.zoomScale * k,
      x: (this.fixedX + this.from.x) * k - this.fixedX,
      y: (this.fixedY + this.from.y) * k - this.fixedY,
      done: false,
    };
  }
}
