// The state of a UIScrollView showing one image: zoom scale, content offset and viewport size, with the limits
// UIScrollView derives from them. Pure; every rule comes from zoom-math.js (the mirror of Swift's ZoomMath).

import { aspectFitZoom, centeringInset, clampedOffset, offsetBounds, zoomToRect } from './zoom-math.js';

/** The default `maximumZoomScale`, in device pixels per image pixel. */
export const DEFAULT_MAX_DEVICE_PIXELS_PER_IMAGE_PIXEL = 2;

/**
 * @typedef {import('./zoom-transition.js').View} View
 * @typedef {{width: number, height: number}} Size
 * @typedef {{x: number, y: number}} Point
 */

/**
 * A scroll view over an image of `contentSize` pixels. `zoomScale` is points per image pixel; (`x`, `y`) is the
 * content offset: the zoomed-content point at the viewport's top-left corner (negative while the centring inset
 * shows). `minimumZoomScale` fits the whole image; `maximumZoomScale` is `maxDevicePixels` device pixels per
 * image pixel (never below the minimum).
 */
export class ScrollView {
  /**
   * @param {{contentSize: Size, viewportSize: Size, devicePixelRatio?: number, maxDevicePixels?: number}} options
   */
  constructor({ contentSize, viewportSize, devicePixelRatio = 1, maxDevicePixels = DEFAULT_MAX_DEVICE_PIXELS_PER_IMAGE_PIXEL }) {
    /** The image size in pixels. @type {Size} */
    this.contentSize = { ...contentSize };
    /** The viewport size in points. @type {Size} */
    this.viewportSize = { ...viewportSize };
    /** Device pixels per point. */
    this.devicePixelRatio = devicePixelRatio;
    /** The zoom limit in device pixels per image pixel. */
    this.maxDevicePixels = maxDevicePixels;
    this.zoomScale = this.minimumZoomScale;
    const rest = this.restingOffset({ x: 0, y: 0 }, this.zoomScale);
    this.x = rest.x;
    this.y = rest.y;
  }

  /** The aspect-fit zoom scale. */
  get minimumZoomScale() {
    return aspectFitZoom(this.contentSize, this.viewportSize);
  }

  /** `maxDevicePixels / devicePixelRatio`, at least {@link ScrollView#minimumZoomScale}. */
  get maximumZoomScale() {
    return Math.max(this.maxDevicePixels / this.devicePixelRatio, this.minimumZoomScale);
  }

  /** The current view. @returns {View} */
  get view() {
    return { zoomScale: this.zoomScale, x: this.x, y: this.y };
  }

  /** Sets zoom scale and offset as given (gestures may leave them out of range for a while). @param {View} view */
  setView(view) {
    this.zoomScale = view.zoomScale;
    this.x = view.x;
    this.y = view.y;
  }

  /** `zoomScale` limited to `[minimumZoomScale, maximumZoomScale]`. */
  clampZoom(zoomScale) {
    return Math.min(Math.max(zoomScale, this.minimumZoomScale), this.maximumZoomScale);
  }

  /** The centring inset at `zoomScale`. */
  insetAt(zoomScale = this.zoomScale) {
    return centeringInset(this.contentSize, zoomScale, this.viewportSize);
  }

  /** The resting range of the offset at `zoomScale`: `{minX, maxX, minY, maxY}`. */
  boundsAt(zoomScale = this.zoomScale) {
    return offsetBounds(this.contentSize, zoomScale, this.viewportSize, this.insetAt(zoomScale));
  }

  /** `offset` clamped to where the view may rest at `zoomScale`. @returns {Point} */
  restingOffset(offset, zoomScale = this.zoomScale) {
    return clampedOffset(offset, this.contentSize, zoomScale, this.viewportSize, this.insetAt(zoomScale));
  }

  /** The nearest view at rest: zoom clamped around `anchor` (a viewport point), then the offset clamped. */
  restingView(view = this.view, anchor = this.centre) {
    const zoomScale = this.clampZoom(view.zoomScale);
    // Unchanged zoom: keep the offset bit for bit ((x + a) − a need not be x).
    const offset = zoomScale === view.zoomScale ? view : ScrollView.offsetZoomedAround(view, zoomScale, anchor);
    return { zoomScale, ...this.restingOffset({ x: offset.x, y: offset.y }, zoomScale) };
  }

  /** Whether the view is at rest: zoom within its limits and offset within its bounds. */
  isResting(view = this.view) {
    const rest = this.restingView(view);
    return rest.zoomScale === view.zoomScale && rest.x === view.x && rest.y === view.y;
  }

  /** The viewport's centre, in viewport points. @returns {Point} */
  get centre() {
    return { x: this.viewportSize.width / 2, y: this.viewportSize.height / 2 };
  }

  /**
   * The offset that keeps the image point under viewport point `anchor` in place when `view` zooms to `zoomScale`:
   * `(offset + anchor) · zoomScale / view.zoomScale − anchor`.
   * @returns {Point}
   */
  static offsetZoomedAround(view, zoomScale, anchor) {
    const k = zoomScale / view.zoomScale;
    return { x: (view.x + anchor.x) * k - anchor.x, y: (view.y + anchor.y) * k - anchor.y };
  }

  /** The image point (pixels) under viewport point `p` in `view` (default: the current one). @returns {Point} */
  imagePointAt(p, view = this.view) {
    return { x: (view.x + p.x) / view.zoomScale, y: (view.y + p.y) / view.zoomScale };
  }

  /** The viewport point showing image point `p`. @returns {Point} */
  viewPointOf(p) {
    return { x: p.x * this.zoomScale - this.x, y: p.y * this.zoomScale - this.y };
  }

  /** The image rectangle the viewport spans (not clipped to the image): `{minX, minY, maxX, maxY}`. */
  get viewportImageRect() {
    const z = this.zoomScale;
    return { minX: this.x / z, minY: this.y / z, maxX: (this.x + this.viewportSize.width) / z, maxY: (this.y + this.viewportSize.height) / z };
  }

  /** Where zoom-to-rect of `rect` (image pixels) leaves the view. @returns {View} */
  zoomToRectView(rect) {
    const target = zoomToRect(rect, this.contentSize, this.viewportSize, this.minimumZoomScale, this.maximumZoomScale);
    return { zoomScale: target.zoomScale, ...target.offset };
  }

  /**
   * The view after zooming by `factor` around viewport point `anchor`, through zoom-to-rect: the rect is the part
   * of the image the viewport will show, so the point under `anchor` stays there unless a limit intervenes.
   * @param {number} factor
   * @param {Point} anchor
   * @param {View} [view] The view to start from (default: the current one).
   * @returns {View}
   */
  zoomedByView(factor, anchor, view = this.view) {
    const z = view.zoomScale * factor;
    const p = this.imagePointAt(anchor, view);
    const minX = p.x - anchor.x / z;
    const minY = p.y - anchor.y / z;
    return this.zoomToRectView({ minX, minY, maxX: minX + this.viewportSize.width / z, maxY: minY + this.viewportSize.height / z });
  }

  /** The aspect-fit view, centred. @returns {View} */
  get fitView() {
    const zoomScale = this.minimumZoomScale;
    return { zoomScale, ...this.restingOffset({ x: 0, y: 0 }, zoomScale) };
  }

  /**
   * Resizes the viewport, keeping the image point at its centre there; a fitted view stays fitted.
   * @param {Size} size Points.
   * @param {number} [devicePixelRatio]
   */
  resize(size, devicePixelRatio = this.devicePixelRatio) {
    const wasFit = this.zoomScale <= this.minimumZoomScale;
    const centre = this.imagePointAt(this.centre);
    this.viewportSize = { ...size };
    this.devicePixelRatio = devicePixelRatio;
    if (wasFit) return this.setView(this.fitView);
    const zoomScale = this.clampZoom(this.zoomScale);
    const offset = { x: centre.x * zoomScale - size.width / 2, y: centre.y * zoomScale - size.height / 2 };
    this.setView({ zoomScale, ...this.restingOffset(offset, zoomScale) });
  }
}
