// Moving an open `<tiler-viewer>` to another version of the image it shows — a pyramid that was being sliced, now
// published under its final version — without a visible jump: the geometry must be the same, so the scroll view,
// the view (contentOffset, zoomScale), gestures under way and the viewport reports go on untouched; every tile at
// hand stays on screen, marked stale, until the new version's tile for the same place replaces it, and a
// replacement takes over the arrival time of the tile it replaces (no fade from a coarser tile in between).

/**
 * Whether two pyramids have the same geometry (size, tile size, overlap): then every tile has the same frame.
 * @param {import('./geometry.js').Pyramid} a
 * @param {import('./geometry.js').Pyramid} b
 */
export function sameGeometry(a, b) {
  return a.width === b.width && a.height === b.height && a.tileSize === b.tileSize && a.overlap === b.overlap;
}

/**
 * Whether a cache entry is a tile of the version shown now (not a stale one kept from the one before).
 * @param {import('./tile-layer.js').TileEntry | undefined} entry
 */
export function isCurrent(entry) {
  return entry !== undefined && !entry.stale;
}

/**
 * The arrival time (ms) to record for a tile arriving at `now` in place of `old`: a stale tile's own, so that the
 * new version's tile shows exactly as much as the one it replaces (fully, once that had faded in); else `now`.
 * @param {import('./tile-layer.js').TileEntry | undefined} old
 * @param {number} now
 */
export function arrivalTime(old, now) {
  return old?.stale ? old.loadedAt : now;
}

/**
 * Makes `source` the element's (its geometry checked by the caller): the tile layer draws from its URLs, the loader
 * forgets what it was fetching, waiting for or failed to get from the old one, and every cached tile is kept, marked
 * stale, so that it is drawn until its replacement arrives. Nothing about the view changes and no event fires.
 * @param {{source: any, layer: import('./tile-layer.js').TileLayer, loader: import('./tile-loader.js').TileLoader,
 *   cache: import('./tile-cache.js').TileCache, invalidate: () => void}} element
 * @param {import('./tile-source.js').TileSource} source
 */
export function adoptSource(element, source) {
  element.source = source;
  element.layer.image = { pyramid: element.layer.pyramid, tileURL: source.tileURL };
  element.loader.reset();
  for (const entry of element.cache.values()) entry.stale = true;
  element.invalidate();
}
