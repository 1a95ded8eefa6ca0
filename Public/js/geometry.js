// The Deep Zoom pyramid and the visible-tiles query, mirrored operation for operation from Swift's TileGeometry
// (Pyramid, Pyramid+VisibleTiles, Pyramid+TileOrder; see docs/visible-query.md). A node test runs `tiler visible`
// on hundreds of random viewports and requires the same level, visible rect and tiles in the same order.
// Every number here is an integer below 2^53 or a double computed by the same IEEE operations as in Swift.

export * from './zoom-math.js';

/** The most tiles {@link Pyramid#visibleTiles} returns unless told otherwise (as the server). */
export const DEFAULT_TILE_LIMIT = 100_000;

/** `2^(1e-9)` rounded to a double: the significand above which `log2` exceeds the level tolerance of 1e-9. */
const LEVEL_TOLERANCE = 1.000_000_000_693_147;

/**
 * A request for more tiles than the limit; `parameter` is `"prefetch"` or `"viewport"`, as the server names it.
 */
export class GeometryError extends Error {
  /**
   * @param {string} parameter The offending query parameter.
   * @param {string} message A one-line explanation.
   */
  constructor(parameter, message) {
    super(message);
    this.name = 'GeometryError';
    /** @type {string} */
    this.parameter = parameter;
  }
}

/**
 * @typedef {{x: number, y: number, width: number, height: number}} PixelRect An integer rectangle in pixels.
 * @typedef {{minX: number, minY: number, maxX: number, maxY: number}} ImageRect Real bounds in image pixels.
 * @typedef {{x: number, y: number, width: number, height: number, zoomScale: number,
 *   contentScale?: number, prefetch?: number}} Viewport A UIScrollView viewport: content offset and size in points,
 *   zoom in points per image pixel, device pixels per point, whole tiles of margin.
 * @typedef {{level: number, col: number, row: number, frame: PixelRect}} VisibleTile One tile and its frame.
 * @typedef {{level: number, visibleRect: ImageRect | null, tiles: VisibleTile[]}} VisibleTiles A query's answer.
 */

/** `ceil(log2(n))` for an integer `n ≥ 1`. */
function ceilLog2(n) {
  let k = 0;
  while (2 ** k < n) k += 1;
  return k;
}

/** `ceil(n / 2^k)`, exact for integers below 2^53 (dividing by a power of two is exact). */
function ceilShift(n, k) {
  return Math.ceil(n / 2 ** k);
}

/** Swift's `min(x, y)`: `y < x ? y : x` (keeps Swift's choice between 0 and -0). */
export function swiftMin(x, y) {
  return y < x ? y : x;
}

/** Swift's `max(x, y)`: `y >= x ? y : x`. */
export function swiftMax(x, y) {
  return y >= x ? y : x;
}

/**
 * The geometry of a Deep Zoom pyramid: level 0 is 1×1, level `maxLevel = ceil(log2(max(width, height)))` is the
 * full image, level `L` is the image shrunk by `2^(maxLevel − L)`, rounding up. All queries are O(1) except
 * {@link Pyramid#visibleTiles}.
 */
export class Pyramid {
  /**
   * @param {number} width Full-resolution width in pixels (integer ≥ 1).
   * @param {number} height Full-resolution height in pixels (integer ≥ 1).
   * @param {number} [tileSize] Tile edge in level pixels (integer ≥ 1).
   * @param {number} [overlap] DZI overlap in pixels (integer ≥ 0).
   */
  constructor(width, height, tileSize = 256, overlap = 0) {
    if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1)) {
      throw new RangeError(`image size must be integers ≥ 1 (got ${width}×${height})`);
    }
    if (!(Number.isInteger(tileSize) && Number.isInteger(overlap) && tileSize >= 1 && overlap >= 0)) {
      throw new RangeError(`tile size must be ≥ 1 and overlap ≥ 0 (got ${tileSize}, ${overlap})`);
    }
    /** @readonly */ this.width = width;
    /** @readonly */ this.height = height;
    /** @readonly */ this.tileSize = tileSize;
    /** @readonly */ this.overlap = overlap;
    /** The index of the full-resolution level. @readonly */
    this.maxLevel = ceilLog2(Math.max(width, height));
  }

  /**
   * The size of `level` in pixels: `ceil(width / 2^k) × ceil(height / 2^k)`, `k = maxLevel − level`.
   * @param {number} level
   * @returns {{width: number, height: number}}
   */
  levelSize(level) {
    const k = this.maxLevel - level;
    return { width: ceilShift(this.width, k), height: ceilShift(this.height, k) };
  }

  /**
   * The tile grid of `level`.
   * @param {number} level
   * @returns {{columns: number, rows: number}}
   */
  grid(level) {
    const size = this.levelSize(level);
    return { columns: Math.ceil(size.width / this.tileSize), rows: Math.ceil(size.height / this.tileSize) };
  }

  /**
   * The highest level that is a single tile: the overview a viewer loads first and never evicts.
   * @returns {number}
   */
  get overviewLevel() {
    let level = 0;
    while (level < this.maxLevel) {
      const grid = this.grid(level + 1);
      if (grid.columns > 1 || grid.rows > 1) break;
      level += 1;
    }
    return level;
  }

  /**
   * Full-resolution image pixels one tile edge of `level` stands for: `tileSize · 2^(maxLevel − level)`.
   * @param {number} level
   */
  span(level) {
    return this.tileSize * 2 ** (this.maxLevel - level);
  }

  /**
   * The level pixels tile (`col`, `row`) covers, without overlap.
   * @returns {PixelRect}
   */
  tileRect(level, col, row) {
    const size = this.levelSize(level);
    const x = col * this.tileSize;
    const y = row * this.tileSize;
    return { x, y, width: Math.min(x + this.tileSize, size.width) - x, height: Math.min(y + this.tileSize, size.height) - y };
  }

  /**
   * The level pixels the tile's image file holds: {@link Pyramid#tileRect} grown by `overlap` on every side that
   * has a neighbour, clipped to the level.
   * @returns {PixelRect}
   */
  tileImageRect(level, col, row) {
    const size = this.levelSize(level);
    const core = this.tileRect(level, col, row);
    const x0 = Math.max(core.x - this.overlap, 0);
    const y0 = Math.max(core.y - this.overlap, 0);
    const x1 = Math.min(core.x + core.width + this.overlap, size.width);
    const y1 = Math.min(core.y + core.height + this.overlap, size.height);
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }

  /**
   * The full-resolution image pixels tile (`col`, `row`) of `level` stands for (its frame).
   * @returns {PixelRect}
   */
  tileFrame(level, col, row) {
    const span = this.span(level);
    const x = col * span;
    const y = row * span;
    return { x, y, width: Math.min(x + span, this.width) - x, height: Math.min(y + span, this.height) - y };
  }

  /**
   * The coarsest level with at least one level pixel per device pixel:
   * `ceil(maxLevel + log2(zoomScale · contentScale) − 1e-9)` clamped to `0 … maxLevel`, computed without `log2`
   * from the exponent and significand of the product, as in Swift.
   * @param {number} zoomScale Points per image pixel (> 0).
   * @param {number} [contentScale] Device pixels per point (> 0).
   * @returns {number}
   */
  level(zoomScale, contentScale = 1) {
    const z = zoomScale * contentScale;
    if (z === 0) return 0;
    if (z === Infinity) return this.maxLevel;
    // Below 2^-1000 every pyramid (maxLevel ≤ 32) is at level 0; above, z is a normal double.
    if (z < 2 ** -1000) return 0;
    const exponent = binaryExponent(z);
    const bump = z / 2 ** exponent > LEVEL_TOLERANCE ? 1 : 0;
    return Math.min(Math.max(this.maxLevel + exponent + bump, 0), this.maxLevel);
  }

  /**
   * The image pixels `viewport` shows, intersected with the image, or `null` if that has no area.
   * @param {Viewport} viewport
   * @returns {ImageRect | null}
   */
  visibleRect(viewport) {
    const z = viewport.zoomScale;
    const rect = {
      minX: swiftMax(viewport.x / z, 0),
      minY: swiftMax(viewport.y / z, 0),
      maxX: swiftMin((viewport.x + viewport.width) / z, this.width),
      maxY: swiftMin((viewport.y + viewport.height) / z, this.height),
    };
    return rect.minX < rect.maxX && rect.minY < rect.maxY ? rect : null;
  }

  /**
   * The tiles a client showing `viewport` needs, nearest the centre first (ties by row, then column); the
   * column and row ranges grow by `prefetch` on each side, clipped to the grid.
   * @param {Viewport} viewport
   * @param {number} [tileLimit]
   * @returns {VisibleTiles}
   * @throws {GeometryError} when more than `tileLimit` tiles would be returned.
   */
  visibleTiles(viewport, tileLimit = DEFAULT_TILE_LIMIT) {
    const level = this.level(viewport.zoomScale, viewport.contentScale ?? 1);
    const rect = this.visibleRect(viewport);
    if (rect === null) return { level, visibleRect: null, tiles: [] };
    const grid = this.grid(level);
    const span = this.span(level);
    const seenColumns = indicesMeeting(rect.minX, rect.maxX, span, grid.columns);
    const seenRows = indicesMeeting(rect.minY, rect.maxY, span, grid.rows);
    const prefetch = viewport.prefetch ?? 0;
    const columns = widen(seenColumns, prefetch, grid.columns);
    const rows = widen(seenRows, prefetch, grid.rows);
    const count = (columns[1] - columns[0] + 1) * (rows[1] - rows[0] + 1);
    if (count > tileLimit) {
      const seen = (seenColumns[1] - seenColumns[0] + 1) * (seenRows[1] - seenRows[0] + 1);
      const parameter = seen <= tileLimit ? 'prefetch' : 'viewport';
      throw new GeometryError(parameter, `${parameter} asks for ${count} tiles of level ${level}, more than the limit of ${tileLimit}`);
    }
    const centreX = (rect.minX + rect.maxX) / 2;
    const centreY = (rect.minY + rect.maxY) / 2;
    return { level, visibleRect: rect, tiles: this.orderedTiles(level, columns, rows, centreX, centreY) };
  }

  /**
   * Tiles `columns` × `rows` (inclusive ranges) of `level` by ascending squared distance of their frame centre
   * to (`centreX`, `centreY`), ties by row, then column.
   * @returns {VisibleTile[]}
   */
  orderedTiles(level, columns, rows, centreX, centreY) {
    const keys = [];
    for (let row = rows[0]; row <= rows[1]; row += 1) {
      const dy = this.frameMid(row, this.height, level) - centreY;
      for (let col = columns[0]; col <= columns[1]; col += 1) {
        const dx = this.frameMid(col, this.width, level) - centreX;
        keys.push({ distance: dx * dx + dy * dy, index: keys.length, col, row });
      }
    }
    keys.sort((a, b) => a.distance - b.distance || a.index - b.index);
    return keys.map(({ col, row }) => ({ level, col, row, frame: this.tileFrame(level, col, row) }));
  }

  /** The centre of tile `index`'s frame along an axis of `extent` image pixels: `x + width / 2`, exact. */
  frameMid(index, extent, level) {
    const span = this.span(level);
    const start = index * span;
    return start + (Math.min(start + span, extent) - start) / 2;
  }
}

/** The binary exponent `e` of a positive normal double `z = m · 2^e`, `1 ≤ m < 2`, read from its bits. */
function binaryExponent(z) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, z);
  return ((view.getUint16(0) >> 4) & 0x7ff) - 1023;
}

/**
 * The indices `i` in `0 ..< count` whose span `[i·span, (i+1)·span)` meets `(low, high)`, `0 ≤ low < high`,
 * estimated by division and corrected by exact comparisons. Returns an inclusive `[first, last]`.
 */
function indicesMeeting(low, high, span, count) {
  let first = Math.trunc(swiftMin(low / span, count - 1));
  while (first > 0 && first * span > low) first -= 1;
  while (first < count - 1 && (first + 1) * span <= low) first += 1;
  let last = swiftMax(Math.trunc(swiftMin(high / span, count - 1)), first);
  while (last > first && last * span >= high) last -= 1;
  while (last < count - 1 && (last + 1) * span < high) last += 1;
  return [first, last];
}

/** The inclusive `range` widened by `margin` on both sides, clipped to `0 ..< count`. */
function widen(range, margin, count) {
  return [range[0] - Math.min(margin, range[0]), range[1] + Math.min(margin, count - 1 - range[1])];
}

/**
 * An answer in the shape of the server's JSON (`tiler visible`, `GET /api/images/NAME/visible`), without URLs.
 * @param {Pyramid} pyramid
 * @param {VisibleTiles} answer
 */
export function visibleTilesJSON(pyramid, answer) {
  const size = pyramid.levelSize(answer.level);
  const rect = answer.visibleRect;
  return {
    width: pyramid.width, height: pyramid.height, tileSize: pyramid.tileSize, overlap: pyramid.overlap,
    maxLevel: pyramid.maxLevel, level: answer.level, levelScale: 2 ** (answer.level - pyramid.maxLevel),
    levelWidth: size.width, levelHeight: size.height,
    visibleRect: rect && { x: rect.minX, y: rect.minY, width: rect.maxX - rect.minX, height: rect.maxY - rect.minY },
    tiles: answer.tiles.map((t) => ({ level: t.level, col: t.col, row: t.row, ...t.frame })),
  };
}
