// The client of `tiler serve`'s HTTP API: the image list, the visible-tiles query and tile images.
// Every failure becomes an ApiError with a one-line message fit to show to a person.

import { Pyramid } from './geometry.js';

/** A failed request: `status` is the HTTP status, or 0 when the server could not be reached. */
export class ApiError extends Error {
  /**
   * @param {string} message One line, for people.
   * @param {number} status
   */
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    /** @type {number} */
    this.status = status;
  }
}

/**
 * One served image, as `GET /api/images` lists it, with its geometry and URLs.
 */
export class ImageInfo {
  /**
   * @param {{name: string, width: number, height: number, tileSize: number, overlap: number, format: string,
   *   maxLevel: number, dzi: string}} entry An element of the list.
   */
  constructor(entry) {
    /** The name in URLs, e.g. `maps/city`. */
    this.name = entry.name;
    /** The tile file extension (`jpg`, `png`). */
    this.format = entry.format;
    /** The descriptor's URL, as the server spells it (percent-encoded). */
    this.dzi = entry.dzi;
    /** The geometry. */
    this.pyramid = new Pyramid(entry.width, entry.height, entry.tileSize, entry.overlap);
    if (this.pyramid.maxLevel !== entry.maxLevel) {
      throw new ApiError(`${entry.name}: the server says maxLevel ${entry.maxLevel}, the geometry says ${this.pyramid.maxLevel}`, 0);
    }
    this.tilePrefix = `${entry.dzi.replace(/\.dzi$/, '')}_files/`;
  }

  /** The URL of tile (`level`, `col`, `row`), in the Deep Zoom layout the server serves. */
  tileURL(level, col, row) {
    return `${this.tilePrefix}${level}/${col}_${row}.${this.format}`;
  }

  /** The level used for thumbnails: at most 256 px on its long side and a single tile. */
  get thumbnailLevel() {
    const p = this.pyramid;
    let level = p.overviewLevel;
    while (level > 0 && Math.max(p.levelSize(level).width, p.levelSize(level).height) > 256) level -= 1;
    return level;
  }

  /** The URL of the image's thumbnail tile. */
  get thumbnailURL() {
    return this.tileURL(this.thumbnailLevel, 0, 0);
  }
}

/** The path of `name` in API URLs: each segment percent-encoded, slashes kept (as the server encodes it). */
export function encodeName(name) {
  return name.split('/').map(encodeURIComponent).join('/');
}

/** Fetches `url`, turning network failures and error statuses into {@link ApiError}s. */
async function request(url, what, signal) {
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(`Could not reach the server for ${what}.`, 0);
  }
  if (!response.ok) {
    let detail = '';
    try {
      detail = (await response.json()).error ?? '';
    } catch {
      // The body was not the server's JSON error; the status says enough.
    }
    throw new ApiError(`${what}: HTTP ${response.status}${detail ? ` — ${detail}` : ''}`, response.status);
  }
  return response;
}

/**
 * The served images, sorted by name.
 * @param {AbortSignal} [signal]
 * @returns {Promise<ImageInfo[]>}
 */
export async function listImages(signal) {
  const response = await request('/api/images', 'the image list', signal);
  const entries = await response.json();
  return entries.map((entry) => new ImageInfo(entry));
}

/**
 * The server's answer to the visible-tiles query for `viewport` (the same JSON as `tiler visible`, with URLs).
 * @param {string} name
 * @param {import('./geometry.js').Viewport} viewport
 * @param {AbortSignal} [signal]
 */
export async function fetchVisibleTiles(name, viewport, signal) {
  const query = new URLSearchParams({
    x: String(viewport.x), y: String(viewport.y), width: String(viewport.width), height: String(viewport.height),
    zoomScale: String(viewport.zoomScale), contentScale: String(viewport.contentScale ?? 1), prefetch: String(viewport.prefetch ?? 0),
  });
  const response = await request(`/api/images/${encodeName(name)}/visible?${query}`, 'the visible tiles', signal);
  return response.json();
}

/**
 * Downloads and decodes a tile image off the main thread.
 * @param {string} url
 * @param {AbortSignal} [signal]
 * @returns {Promise<ImageBitmap>}
 */
export async function fetchTile(url, signal) {
  const response = await request(url, 'tile', signal);
  const blob = await response.blob();
  try {
    return await createImageBitmap(blob);
  } catch {
    throw new ApiError('tile: the image could not be decoded', response.status);
  }
}
