// The URL hash as the viewer's address: `#image=NAME&x=…&y=…&zoom=…`, UIScrollView's contentOffset and zoomScale,
// so a copied URL reopens the same view. Pure: parses and formats strings.

/**
 * @typedef {{zoomScale: number, x: number, y: number}} View
 * @typedef {{image: string | null, view: View | null}} Place What a hash names: an image (or the list, `null`)
 *   and optionally a view of it.
 */

/**
 * Reads a location hash (with or without the leading `#`). A view is returned only when `x`, `y` and `zoom` are
 * all finite numbers and `zoom > 0`; anything else about the view is ignored (the image opens fitted).
 * @param {string} hash
 * @returns {Place}
 */
export function parseHash(hash) {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const image = params.get('image');
  if (!image) return { image: null, view: null };
  const number = (name) => {
    const text = params.get(name);
    return text !== null && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim()) ? Number(text) : NaN;
  };
  const view = { zoomScale: number('zoom'), x: number('x'), y: number('y') };
  const valid = Number.isFinite(view.x) && Number.isFinite(view.y) && Number.isFinite(view.zoomScale) && view.zoomScale > 0;
  return { image, view: valid ? view : null };
}

/**
 * The number as the hash writes it: offsets to 1/100 point, the zoom to 9 significant digits — enough to put
 * every tile back on the same device pixel.
 */
export function roundView(view) {
  return {
    zoomScale: Number(view.zoomScale.toPrecision(9)),
    x: Math.round(view.x * 100) / 100 + 0,
    y: Math.round(view.y * 100) / 100 + 0,
  };
}

/**
 * Writes a hash for `place` (the view rounded by {@link roundView}); `''` for the list.
 * @param {Place} place
 * @returns {string}
 */
export function formatHash(place) {
  if (!place.image) return '';
  const params = new URLSearchParams({ image: place.image });
  if (place.view) {
    const v = roundView(place.view);
    params.set('x', String(v.x));
    params.set('y', String(v.y));
    params.set('zoom', String(v.zoomScale));
  }
  return `#${params.toString()}`;
}

/** Whether two views are the same once rounded for the hash. */
export function sameView(a, b) {
  if (!a || !b) return a === b;
  const p = roundView(a);
  const q = roundView(b);
  return p.zoomScale === q.zoomScale && p.x === q.x && p.y === q.y;
}
