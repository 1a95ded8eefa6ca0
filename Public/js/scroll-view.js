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
    /** UIKit's `contentInset`: points added around the scrollable area (chrome that covers the box). */
    this.contentInset = { top: 0, left: 0, bottom: 0, right: 0 };
    /** Explicit zoom limits (`null`: the defaults). */
    this.minimumOverride = null;
    this.maximumOverride = null;
    this.zoomScale = this.minimumZoomScale;
    const rest = this.restingOffset({ x: 0, y: 0 }, this.zoomScale);
    this.x = rest.x;
    this.y = rest.y;
  }

  /** The part of the viewport inside `contentInset`, in points (at least 1×1). @returns {Size} */
  get innerSize() {
    const i = this.contentInset;
    return { width: Math.max(1, this.viewportSize.width - i.left - i.right), height: Math.max(1, this.viewportSize.height - i.top - i.bottom) };
  }

  /** The explicit minimum, else aspect fit inside the insets but never above 1 (a small image is not enlarged). */
  get minimumZoomScale() {
    return this.minimumOverride ?? Math.min(aspectFitZoom(this.contentSize, this.innerSize), 1);
  }

  /** The explicit maximum, else `maxDevicePixels / devicePixelRatio`; never below {@link ScrollView#minimumZoomScale}. */
  get maximumZoomScale() {
    return Math.max(this.maximumOverride ?? this.maxDevicePixels / this.devicePixelRatio, this.minimumZoomScale);
  }

  /** UIKit's `contentSize`: the image size × `zoomScale`, in points. @returns {Size} */
  get scaledContentSize() {
    return { width: this.contentSize.width * this.zoomScale, height: this.contentSize.height * this.zoomScale };
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

  /**
   * The whole inset at `zoomScale` (UIKit's `adjustedContentInset` plus centring): `contentInset` plus the inset that
   * centres content smaller than the area inside `contentInset`.
   */
  insetAt(zoomScale = this.zoomScale) {
    const c = centeringInset(this.contentSize, zoomScale, this.innerSize);
    const i = this.contentInset;
    return { top: c.top + i.top, left: c.left + i.left, bottom: c.bottom + i.bottom, right: c.right + i.right };
  }

  /** The resting range of the offset at `zoomScale`: `{minX, maxX, minY, maxY}`. */
  boundsAt(zoomScale = this.zoomScale) {
    return offsetBounds(this.contentSize, zoomScale, this.viewportSize, this.insetAt(zoomScale));
  }

  /** `offset` clamped to where the view may rest at `zoomScale`. @returns {Point} */
  restingOffset(offset, zoomScale = this.zoomScale) {
    return clampedOffset(offset, this.contentSize, zoomScale, this.viewportSize, this.insetAt(zoomScale));
  }

  /** Whether the content can scroll along each axis at the current zoom. @returns {{x: boolean, y: boolean}} */
  get scrollable() {
    const b = this.boundsAt();
    // A fitted axis may be a rounding error longer than the box: that is no room to scroll.
    return { x: b.maxX - b.minX > 1e-6, y: b.maxY - b.minY > 1e-6 };
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

  /** The centre of the area inside `contentInset`, in viewport points. @returns {Point} */
  get centre() {
    const i = this.contentInset;
    const inner = this.innerSize;
    return { x: i.left + inner.width / 2, y: i.top + inner.height / 2 };
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
    // Worked out in the area inside contentInset, whose origin is (left, top) in the viewport.
    const target = zoomToRect(rect, this.contentSize, this.innerSize, this.minimumZoomScale, this.maximumZoomScale);
    const offset = { x: target.offset.x - this.contentInset.left, y: target.offset.y - this.contentInset.top };
    return { zoomScale: target.zoomScale, ...this.restingOffset(offset, target.zoomScale) };
  }

  /**
   * The view after zooming by `factor` around viewport point `anchor`, zoom clamped to the limits and the offset to
   * its bounds: the point under `anchor` stays there unless a limit intervenes.
   * @param {number} factor
   * @param {Point} anchor
   * @param {View} [view] The view to start from (default: the current one).
   * @returns {View}
   */
  zoomedByView(factor, anchor, view = this.view) {
    return this.zoomedToView(view.zoomScale * factor, anchor, view);
  }

  /**
   * The view after zooming to `zoomScale` around viewport point `anchor`, zoom clamped to the limits and the offset
   * to its bounds (`setZoomScale` zooms around {@link ScrollView#centre}).
   * @param {number} zoomScale
   * @param {Point} anchor
   * @param {View} [view] The view to start from (default: the current one).
   * @returns {View}
   */
  zoomedToView(zoomScale, anchor, view = this.view) {
    const z = this.clampZoom(zoomScale);
    const offset = z === view.zoomScale ? view : ScrollView.offsetZoomedAround(view, z, anchor);
    return { zoomScale: z, ...this.restingOffset({ x: offset.x, y: offset.y }, z) };
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
    this.applyLimits(size, devicePixelRatio, wasFit, centre);
  }

  /** Sets `contentInset`, keeping the image point at the centre of the inner area there (a fitted view stays fitted). */
  setContentInset(inset) {
    const wasFit = this.zoomScale <= this.minimumZoomScale;
    const centre = this.imagePointAt(this.centre);
    this.contentInset = { top: inset.top ?? 0, left: inset.left ?? 0, bottom: inset.bottom ?? 0, right: inset.right ?? 0 };
    this.applyLimits(this.viewportSize, this.devicePixelRatio, wasFit, centre);
  }

  /** After a change of size, ratio, insets or limits: refit, or keep `centre` (an image point) at the centre. */
  applyLimits(size, devicePixelRatio, wasFit, centre) {
    this.viewportSize = { ...size };
    this.devicePixelRatio = devicePixelRatio;
    if (wasFit) return this.setView(this.fitView);
    const zoomScale = this.clampZoom(this.zoomScale);
    const c = this.centre;
    const offset = { x: centre.x * zoomScale - c.x, y: centre.y * zoomScale - c.y };
    this.setView({ zoomScale, ...this.restingOffset(offset, zoomScale) });
  }
}
