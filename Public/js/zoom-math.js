// UIScrollView arithmetic, mirrored expression for expression from Swift's TileGeometry.ZoomMath:
// aspect fit, the centring inset, the clamped content offset, zoom-to-rect and the flick projection.
// `content` is the image size in pixels, `zoomScale` points per image pixel, viewport sizes in points.

/**
 * @typedef {{width: number, height: number}} Size
 * @typedef {{x: number, y: number}} Point
 * @typedef {{top: number, left: number, bottom: number, right: number}} Insets
 * @typedef {{zoomScale: number, offset: Point, inset: Insets}} ZoomTarget
 */

/** `UIScrollView.DecelerationRate.normal`: velocity is multiplied by this every millisecond. */
export const NORMAL_DECELERATION_RATE = 0.998;
/** `UIScrollView.DecelerationRate.fast`. */
export const FAST_DECELERATION_RATE = 0.99;

// Swift's generic min and max (which of two equal values they return decides the sign of a zero).
const min = (x, y) => (y < x ? y : x);
const max = (x, y) => (y >= x ? y : x);

const isPositive = (value) => Number.isFinite(value) && value > 0;
const isPositiveSize = (size) => isPositive(size.width) && isPositive(size.height);

/**
 * The zoom scale that fits the whole image in the viewport (aspect fit), the usual `minimumZoomScale`.
 * @param {Size} content
 * @param {Size} viewport
 * @returns {number}
 */
export function aspectFitZoom(content, viewport) {
  if (!isPositiveSize(content) || !isPositiveSize(viewport)) throw new RangeError('sizes must be finite and > 0');
  return min(viewport.width / content.width, viewport.height / content.height);
}

/**
 * The inset that centres zoomed content smaller than the viewport:
 * `max(0, (viewport.width − content.width · zoomScale) / 2)` left and right, likewise top and bottom.
 * @param {Size} content
 * @param {number} zoomScale
 * @param {Size} viewport
 * @returns {Insets}
 */
export function centeringInset(content, zoomScale, viewport) {
  if (!isPositiveSize(content) || !isPositiveSize(viewport) || !isPositive(zoomScale)) {
    throw new RangeError('sizes and zoomScale must be finite and > 0');
  }
  const horizontal = max(0, (viewport.width - content.width * zoomScale) / 2);
  const vertical = max(0, (viewport.height - content.height * zoomScale) / 2);
  return { top: vertical, left: horizontal, bottom: vertical, right: horizontal };
}

/**
 * The scrollable range of the content offset at rest, per axis.
 * @param {Size} content
 * @param {number} zoomScale
 * @param {Size} viewport
 * @param {Insets} inset
 * @returns {{minX: number, maxX: number, minY: number, maxY: number}}
 */
export function offsetBounds(content, zoomScale, viewport, inset) {
  const minX = -inset.left;
  const maxX = max(minX, content.width * zoomScale + inset.right - viewport.width);
  const minY = -inset.top;
  const maxY = max(minY, content.height * zoomScale + inset.bottom - viewport.height);
  return { minX, maxX, minY, maxY };
}

/**
 * `offset` clamped to the scrollable range, where UIScrollView rests.
 * @param {Point} offset
 * @param {Size} content
 * @param {number} zoomScale
 * @param {Size} viewport
 * @param {Insets} inset
 * @returns {Point}
 */
export function clampedOffset(offset, content, zoomScale, viewport, inset) {
  if (!isPositiveSize(content) || !isPositiveSize(viewport) || !isPositive(zoomScale)) {
    throw new RangeError('sizes and zoomScale must be finite and > 0');
  }
  if (!Number.isFinite(offset.x) || !Number.isFinite(offset.y)) throw new RangeError('offset must be finite');
  const b = offsetBounds(content, zoomScale, viewport, inset);
  return { x: min(max(offset.x, b.minX), b.maxX), y: min(max(offset.y, b.minY), b.maxY) };
}

/**
 * The zoom scale, offset and inset that make `rect` (image pixels, `{minX, minY, maxX, maxY}`) fill the viewport,
 * as `UIScrollView.zoom(to:animated:)` with a centring inset: aspect-fit zoom clamped to
 * `[minimumZoomScale, maximumZoomScale]`, the rect centred, the offset clamped.
 * @param {{minX: number, minY: number, maxX: number, maxY: number}} rect
 * @param {Size} content
 * @param {Size} viewport
 * @param {number} minimumZoomScale
 * @param {number} maximumZoomScale
 * @returns {ZoomTarget}
 */
export function zoomToRect(rect, content, viewport, minimumZoomScale, maximumZoomScale) {
  const width = rect.maxX - rect.minX;
  const height = rect.maxY - rect.minY;
  if (!(width >= 0 && height >= 0 && Number.isFinite(rect.minX) && Number.isFinite(rect.minY))) {
    throw new RangeError('rect must be finite');
  }
  if (!(isPositive(minimumZoomScale) && minimumZoomScale <= maximumZoomScale && Number.isFinite(maximumZoomScale))) {
    throw new RangeError('bad zoom range');
  }
  const fit = min(viewport.width / width, viewport.height / height);
  const zoomScale = min(max(fit, minimumZoomScale), maximumZoomScale);
  const inset = centeringInset(content, zoomScale, viewport);
  const midX = (rect.minX + rect.maxX) / 2;
  const midY = (rect.minY + rect.maxY) / 2;
  const centred = { x: midX * zoomScale - viewport.width / 2, y: midY * zoomScale - viewport.height / 2 };
  return { zoomScale, offset: clampedOffset(centred, content, zoomScale, viewport, inset), inset };
}

/**
 * How far a flick travels before it stops, in points: `velocity / 1000 * rate / (1 − rate)`, the sum of
 * `velocity / 1000 · rateⁿ` over every millisecond `n ≥ 1`.
 * @param {number} velocity Points per second (signed).
 * @param {number} rate Per-millisecond deceleration rate in (0, 1), e.g. {@link NORMAL_DECELERATION_RATE}.
 * @returns {number}
 */
export function decelerationDistance(velocity, rate) {
  if (!(rate > 0 && rate < 1)) throw new RangeError('deceleration rate must be in (0, 1)');
  return ((velocity / 1000) * rate) / (1 - rate);
}

/**
 * Where a flick from `offset` at `velocity` (points per second, per axis) comes to rest, before clamping.
 * @param {Point} offset
 * @param {Point} velocity
 * @param {number} rate
 * @returns {Point}
 */
export function restingOffset(offset, velocity, rate) {
  return {
    x: offset.x + decelerationDistance(velocity.x, rate),
    y: offset.y + decelerationDistance(velocity.y, rate),
  };
}
