// CATiledLayer on a canvas: draws the level the geometry rule picks for the zoom and the screen's
// devicePixelRatio (moved by `levelBias`, CATiledLayer's levelsOfDetailBias), over the best coarser tiles already
// loaded (so nothing is ever blank once the one-tile overview is in), fades new tiles in over 0.25 s, and places
// every tile on device pixels computed from the frame edges it shares with its neighbours, so no seam can open
// between them at any zoom. It works on the image as stored; a turned or mirrored element (orientation.js) gives it
// the stored view and its `orientation`, and the canvas's transform turns what it draws.

import { UPRIGHT, orientationMatrix, shownSize } from './orientation.js';

/** How long a new tile takes to fade in, in ms (CATiledLayer's fadeDuration). */
export const FADE_MS = 250;

/** The cache key of a tile. */
export function tileKey(level, col, row) {
  return `${level}/${col}_${row}`;
}

/**
 * @typedef {{bitmap: ImageBitmap, loadedAt: number, stale?: boolean}} TileEntry A decoded tile and when it arrived
 *   (ms); `stale`: from the version the element showed before `replaceSource` — drawn until the new one replaces it.
 * @typedef {{level: number, col: number, row: number, entry: TileEntry}} Drawable
 */

/**
 * Draws one image's tiles onto a canvas and says which tiles to load.
 */
export class TileLayer {
  /**
   * @param {HTMLCanvasElement} canvas Its backing store is sized by the caller (viewport × devicePixelRatio).
   * @param {import('./api.js').ImageInfo} image
   * @param {{cache: import('./tile-cache.js').TileCache, prefetch?: number}} options
   */
  constructor(canvas, image, { cache, prefetch = 1 }) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d', { alpha: true });
    this.image = image;
    this.pyramid = image.pyramid;
    this.cache = cache;
    this.prefetch = prefetch;
    /**
     * CATiledLayer's `levelsOfDetailBias`, signed: draw this many levels finer (positive) or coarser (negative) than
     * the screen needs. It scales the content scale the geometry rule sees by `2^levelBias`.
     */
    this.levelBias = 0;
    /** How the canvas shows the image: the views given to `render` and `viewport` are of the image as stored. */
    this.orientation = UPRIGHT;
    this.overviewKey = tileKey(this.pyramid.overviewLevel, 0, 0);
    cache.keep(this.overviewKey);
    /** The last frame's answers and counts, for the loader, the status line and tests. */
    this.shown = null;
    this.wanted = null;
    this.stats = { level: 0, visible: 0, missing: 0, drawn: 0, fading: 0 };
  }

  /**
   * The geometry viewport of the scroll view's current state: its content scale is the screen's pixel ratio times
   * `2^levelBias` (a power of two, so the level moves by exactly the bias, clamped to the pyramid).
   */
  viewport(sv, prefetch = 0) {
    const { width, height } = sv.viewportSize;
    return { x: sv.x, y: sv.y, width, height, zoomScale: sv.zoomScale, contentScale: sv.devicePixelRatio * 2 ** this.levelBias, prefetch };
  }

  /**
   * The tiles to load, most important first: the overview, then the visible tiles and their prefetch margin in the
   * geometry's order (nearest the centre first) — the same tiles, in the same order, as the server's answer. A tile
   * the server does not have yet (`isMissing`: a pyramid still being sliced) is followed by its parent one level
   * coarser, and that by its own if it is missing too, down to the first that is not (or the overview): what
   * exists is drawn under what does not, as CATiledLayer draws coarser levels under missing fine ones.
   * @param {(key: string) => boolean} [isMissing]
   * @returns {{key: string, url: string}[]}
   */
  requests(isMissing = () => false) {
    const overview = this.pyramid.overviewLevel;
    const list = [{ key: this.overviewKey, url: this.image.tileURL(overview, 0, 0) }];
    const listed = new Set([this.overviewKey]);
    const add = (level, col, row) => {
      const key = tileKey(level, col, row);
      if (!listed.has(key)) list.push({ key, url: this.image.tileURL(level, col, row) });
      listed.add(key);
      return key;
    };
    for (const t of this.wanted?.tiles ?? []) {
      if (!isMissing(add(t.level, t.col, t.row))) continue;
      for (let level = t.level - 1; level > overview; level -= 1) {
        const scale = 2 ** (t.level - level);
        if (!isMissing(add(level, Math.floor(t.col / scale), Math.floor(t.row / scale)))) break;
      }
    }
    return list;
  }

  /**
   * Draws the scroll view's current state at time `now` (ms), pins what it drew in the cache and computes the
   * tiles to load next.
   * @param {import('./scroll-view.js').ScrollView} sv
   * @param {number} now
   * @param {(key: string) => boolean} [hasFailed] Whether a tile failed to load (counted apart from missing).
   * @returns {boolean} Whether another frame is needed to finish fading tiles in.
   */
  render(sv, now, hasFailed = () => false) {
    this.shown = this.pyramid.visibleTiles(this.viewport(sv));
    this.wanted = this.prefetch > 0 ? this.pyramid.visibleTiles(this.viewport(sv, this.prefetch)) : this.shown;
    const level = this.shown.level;
    const below = new Map(); // coarser fallbacks, by key
    const finer = new Map(); // finer fallbacks (zooming out), by key
    const current = [];
    let missing = 0;
    let failed = 0;
    let fading = 0;
    let stale = 0;
    for (const t of this.shown.tiles) {
      const entry = this.cache.get(tileKey(level, t.col, t.row));
      if (entry?.stale) stale += 1;
      if (entry) current.push({ level, col: t.col, row: t.row, entry });
      else if (hasFailed(tileKey(level, t.col, t.row))) failed += 1;
      else missing += 1;
      const alpha = entry ? this.alpha(entry, now) : 0;
      if (alpha < 1) {
        if (entry) fading += 1;
        this.collectFallbacks(level, t.col, t.row, now, below, finer);
      }
    }
    const layers = [...below.values()].sort((a, b) => a.level - b.level).concat([...finer.values()], current);
    this.draw(sv, layers, now);
    this.cache.pin(layers.map((d) => tileKey(d.level, d.col, d.row)));
    fading += layers.filter((d) => d.level !== level && this.alpha(d.entry, now) < 1).length;
    this.stats = { level, visible: this.shown.tiles.length, missing, failed, stale, drawn: layers.length, fading };
    return fading > 0;
  }

  /** The opacity of a tile at time `now`. */
  alpha(entry, now) {
    return Math.min(1, Math.max(0, (now - entry.loadedAt) / FADE_MS));
  }

  /**
   * Adds what can stand in for tile (`col`, `row`) of `level` while it loads or fades in: its loaded children one
   * level finer, and its ancestors down to the first fully opaque one (at worst the overview).
   */
  collectFallbacks(level, col, row, now, below, finer) {
    const p = this.pyramid;
    if (level < p.overviewLevel) {
      const entry = this.cache.get(this.overviewKey);
      if (entry) finer.set(this.overviewKey, { level: p.overviewLevel, col: 0, row: 0, entry });
    } else if (level < p.maxLevel) {
      const grid = p.grid(level + 1);
      for (let r = 2 * row; r <= Math.min(2 * row + 1, grid.rows - 1); r += 1) {
        for (let c = 2 * col; c <= Math.min(2 * col + 1, grid.columns - 1); c += 1) {
          const key = tileKey(level + 1, c, r);
          const entry = this.cache.get(key);
          if (entry) finer.set(key, { level: level + 1, col: c, row: r, entry });
        }
      }
    }
    for (let l = level - 1; l >= 0; l -= 1) {
      const scale = 2 ** (level - l);
      const c = Math.floor(col / scale);
      const r = Math.floor(row / scale);
      const key = tileKey(l, c, r);
      const entry = below.get(key)?.entry ?? this.cache.get(key);
      if (!entry) continue;
      below.set(key, { level: l, col: c, row: r, entry });
      if (this.alpha(entry, now) >= 1) break;
    }
  }

  /** Clears the canvas and draws `layers` in order, each at the device pixels its frame edges round to. */
  draw(sv, layers, now) {
    const ctx = this.context;
    const dpr = sv.devicePixelRatio;
    const z = sv.zoomScale;
    // A frame edge e (an integer image coordinate) lands on device pixel round((e·z − offset)·dpr): neighbours
    // share the edge value, hence the pixel.
    const edgeX = (e) => Math.round((e * z - sv.x) * dpr);
    const edgeY = (e) => Math.round((e * z - sv.y) * dpr);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = 1;
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    // Turned: draw on the stored view's canvas (the real one, its sides swapped on a quarter turn), mapped onto this one.
    const stored = shownSize({ width: this.canvas.width, height: this.canvas.height }, this.orientation);
    ctx.setTransform(...orientationMatrix(this.orientation, stored.width, stored.height));
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = 'medium';
    for (const d of layers) {
      const frame = this.pyramid.tileFrame(d.level, d.col, d.row);
      const x0 = edgeX(frame.x);
      const y0 = edgeY(frame.y);
      const w = edgeX(frame.x + frame.width) - x0;
      const h = edgeY(frame.y + frame.height) - y0;
      if (w <= 0 || h <= 0) continue;
      const core = this.pyramid.tileRect(d.level, d.col, d.row);
      const file = this.pyramid.tileImageRect(d.level, d.col, d.row);
      const bitmap = d.entry.bitmap;
      const sx = bitmap.width / file.width;
      const sy = bitmap.height / file.height;
      ctx.globalAlpha = this.alpha(d.entry, now);
      ctx.drawImage(bitmap, (core.x - file.x) * sx, (core.y - file.y) * sy, core.width * sx, core.height * sy, x0, y0, w, h);
    }
    ctx.globalAlpha = 1;
  }
}
