// The client of `tiler serve`'s HTTP API: the image list and tile images, fetched through http.js (so every failure
// is an HttpError with a one-line message fit to show to a person).

import { Pyramid } from './geometry.js';
import { HttpError, request } from './http.js';

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
      const message = `${entry.name}: the server says maxLevel ${entry.maxLevel}, the geometry says ${this.pyramid.maxLevel}`;
      throw new HttpError(message, { kind: 'format' });
    }
    this.tilePrefix = `${entry.dzi.replace(/\.dzi$/, '')}_files/`;
    /** A private image's signed tile query (`sig=…`), listed to a token that grants it, else `null`. */
    this.tileQuery = entry.tileQuery ?? null;
    /** Microns per image pixel across, when the file says (slides, TIFFs with resolution tags), else `null`. */
    this.micronsPerPixel = entry.micronsPerPixel?.x ?? null;
    /** The objective's magnification the slide was scanned with (`40`), when the file says, else `null`. */
    this.objectivePower = Number(entry.objectivePower) > 0 ? Number(entry.objectivePower) : null;
    /** The scanner's format (`aperio`, `hamamatsu`, …) for a file read in place, else `null`. */
    this.vendor = entry.vendor ?? null;
    /** Whether the server has the slide's properties (`GET /api/images/NAME/properties`). */
    this.hasProperties = Boolean(entry.properties);
    /** A slide's associated images (`label`, `macro`, `thumbnail`) by kind: their URLs. */
    this.associated = entry.associated ?? {};
    /** The scanned area in image pixels (`{x, y, width, height}`), for slides that say, else `null`. */
    this.bounds = entry.bounds ?? null;
    /** `'slicing'` while an upload's pyramid is being built (its descriptor is then a provisional version), else `null`. */
    this.state = entry.state ?? null;
    /** The slicing job's path (`/api/jobs/ID`) while `state` is `'slicing'`, else `null`. */
    this.job = entry.job ?? null;
    /** The slicing's progress (0–1) while `state` is `'slicing'`, else `null`. */
    this.progress = entry.progress ?? null;
  }

  /** The URL of tile (`level`, `col`, `row`), in the Deep Zoom layout the server serves. */
  tileURL(level, col, row) {
    const url = `${this.tilePrefix}${level}/${col}_${row}.${this.format}`;
    return this.tileQuery ? `${url}?${this.tileQuery}` : url;
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

/**
 * The served images, sorted by name (with a read token: the private ones it grants too). The array's `tokenRefused`
 * is the server's `Tiler-Token-Refused` (`401 the access token … has expired`): the public list, given although the
 * token presented was refused; else `null`.
 * @param {AbortSignal} [signal]
 * @param {typeof fetch} [fetcher] The fetch to use (the app's, which sends its read token).
 * @returns {Promise<ImageInfo[] & {tokenRefused: string | null}>}
 */
export async function listImages(signal, fetcher) {
  const { body: entries, response } = await request('/api/images', { what: 'the image list', signal, ...(fetcher ? { fetch: fetcher } : {}) });
  const images = entries.map((entry) => new ImageInfo(entry));
  images.tokenRefused = response.headers.get('tiler-token-refused');
  return images;
}

/**
 * A slide's properties (name → value, as strings), or `{}` when the server has none.
 * @param {string} name
 * @param {typeof fetch} [fetcher]
 */
export async function fetchProperties(name, fetcher) {
  try {
    const { body } = await request(`/api/images/${encodeName(name)}/properties`, { what: 'the slide properties', ...(fetcher ? { fetch: fetcher } : {}) });
    return body && typeof body === 'object' ? body : {};
  } catch (error) {
    if (error.status === 404) return {};
    throw error;
  }
}

/**
 * Why image `name` is not in the list, as the server answers its descriptor: `missing` (404: there is no such
 * image), `denied` (403: the token presented does not grant it), `locked` (401: it needs a token, or the one
 * presented has expired or is not valid), or `found` (it is there after all: the list was out of date).
 * @param {string} name
 * @param {typeof fetch} [fetcher] The app's fetch, with its read token.
 * @returns {Promise<'missing' | 'denied' | 'locked' | 'found'>}
 */
export async function imageStatus(name, fetcher) {
  try {
    await request(`/images/${encodeName(name)}.dzi`, { what: name, as: 'text', ...(fetcher ? { fetch: fetcher } : {}) });
    return 'found';
  } catch (error) {
    if (error.status === 401) return 'locked';
    if (error.status === 403) return 'denied';
    if (error.status === 404) return 'missing';
    throw error;
  }
}

/**
 * Downloads and decodes a tile image off the main thread.
 * @param {string} url
 * @param {AbortSignal} [signal]
 * @returns {Promise<ImageBitmap>}
 */
export async function fetchTile(url, signal) {
  const { body: blob, response } = await request(url, { what: 'tile', as: 'blob', signal });
  try {
    return await createImageBitmap(blob);
  } catch {
    throw new HttpError('tile: the image could not be decoded', { kind: 'format', status: response.status, url });
  }
}
