// How an element shows its image turned: a rotation by a quarter turn (0, 90, 180 or 270 degrees clockwise) and a
// mirror flip (left and right swapped on screen, after the rotation). The scroll view works on the image as shown
// (its content is the turned image: width and height swap on a quarter turn); the tile layer, the navigator and the
// viewport reports work on the image as stored. A quarter turn maps axis-aligned rectangles to axis-aligned
// rectangles and whole device pixels to whole device pixels, so the view shown maps to one image-space viewport —
// the one the geometry picks tiles for and the server is told about — and tiles stay seamless. Pure.

/** @typedef {{rotation: number, flipped: boolean}} Orientation */

/** The orientation that changes nothing. */
export const UPRIGHT = Object.freeze({ rotation: 0, flipped: false });

/** A rotation in degrees as one of 0, 90, 180, 270 (any multiple of 90, negative too); else a RangeError. */
export function normalRotation(value) {
  const n = Number(value);
  if (!Number.isFinite(n) || n % 90 !== 0) throw new RangeError(`rotation must be a multiple of 90 degrees (got ${value})`);
  return ((n % 360) + 360) % 360;
}

/** Whether `o` changes nothing. */
export function isUpright(o) {
  return o.rotation === 0 && !o.flipped;
}

/** The size of a `size` box as shown (a quarter turn swaps width and height). */
export function shownSize(size, o) {
  return o.rotation % 180 === 0 ? { width: size.width, height: size.height } : { width: size.height, height: size.width };
}

/**
 * The affine map from a `width` × `height` box as stored to the same box as shown: `[a, b, c, d, e, f]` as canvas's
 * `setTransform` takes it (shown x = a·u + c·v + e, shown y = b·u + d·v + f).
 */
export function orientationMatrix(o, width, height) {
  const shown = shownSize({ width, height }, o);
  let m;
  if (o.rotation === 90) m = [0, 1, -1, 0, height, 0];
  else if (o.rotation === 180) m = [-1, 0, 0, -1, width, height];
  else if (o.rotation === 270) m = [0, -1, 1, 0, 0, width];
  else m = [1, 0, 0, 1, 0, 0];
  if (o.flipped) m = [-m[0], m[1], -m[2], m[3], shown.width - m[4], m[5]];
  return m;
}

/** Point `p` of a box of `size` (as stored) where it is shown. */
export function toShown(p, o, size) {
  const [a, b, c, d, e, f] = orientationMatrix(o, size.width, size.height);
  return { x: a * p.x + c * p.y + e + 0, y: b * p.x + d * p.y + f + 0 };
}

/** Point `p` of the box as shown, where it is in the box of `size` as stored. */
export function toStored(p, o, size) {
  const [a, b, c, d, e, f] = orientationMatrix(o, size.width, size.height);
  // The matrix is a signed permutation: its inverse is its transpose.
  const x = p.x - e;
  const y = p.y - f;
  return { x: a * x + b * y + 0, y: c * x + d * y + 0 }; // (+ 0: no −0)
}

/** The rectangle `{minX, minY, maxX, maxY}` of the box as shown, as a rectangle of the box of `size` as stored. */
export function rectToStored(r, o, size) {
  const p = toStored({ x: r.minX, y: r.minY }, o, size);
  const q = toStored({ x: r.maxX, y: r.maxY }, o, size);
  return { minX: Math.min(p.x, q.x), minY: Math.min(p.y, q.y), maxX: Math.max(p.x, q.x), maxY: Math.max(p.y, q.y) };
}

/** The rectangle `{x, y, width, height}` of the image as stored, as it is shown. */
export function rectToShown(r, o, size) {
  const p = toShown({ x: r.x, y: r.y }, o, size);
  const q = toShown({ x: r.x + r.width, y: r.y + r.height }, o, size);
  return { x: Math.min(p.x, q.x), y: Math.min(p.y, q.y), width: Math.abs(q.x - p.x), height: Math.abs(q.y - p.y) };
}

/**
 * The scroll view's state as the image as stored sees it: the content offset and viewport size (points) of the same
 * view of the unturned image of `imageSize` pixels, at the same zoom and screen. Upright, the scroll view's own.
 * @param {{x: number, y: number, zoomScale: number, devicePixelRatio: number, viewportSize: {width: number, height: number}}} sv
 * @param {Orientation} o
 * @param {{width: number, height: number}} imageSize
 */
export function storedView(sv, o, imageSize) {
  if (isUpright(o)) return sv;
  const z = sv.zoomScale;
  const { width, height } = sv.viewportSize;
  const r = rectToStored({ minX: sv.x / z, minY: sv.y / z, maxX: (sv.x + width) / z, maxY: (sv.y + height) / z }, o, imageSize);
  return {
    x: r.minX * z, y: r.minY * z, zoomScale: z, devicePixelRatio: sv.devicePixelRatio,
    viewportSize: shownSize({ width, height }, o),
    viewportImageRect: r,
  };
}
