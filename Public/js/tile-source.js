// Where an element's tiles come from: a Deep Zoom descriptor (`….dzi`) on any static host, or an IIIF Image API
// service (`…/info.json`), read into the same Pyramid geometry and a tile-URL function. A `.dzi` served by
// `tiler serve` (its `Server: tiler` header, its `/images/NAME.dzi` path) also yields the server's visible-rect
// endpoint, so the element can report its viewport there. A private image's descriptor comes with the query of
// its signed tile URLs (`Tiler-Tile-Query`), which every tile URL then carries.

import { Pyramid } from './geometry.js';
import { encodeName } from './api.js';
import { HttpError, parseJSON, request } from './http.js';

/**
 * @typedef {{name: string, pyramid: Pyramid, tileURL: (level: number, col: number, row: number) => string,
 *   visibleEndpoint: string | null, tileQuery?: string}} TileSource
 *   `tileQuery`: a private image's signed-URL query (replaceable: the tile URLs follow it).
 */

/**
 * Loads the descriptor at `src` (resolved against the page) and returns its tile source.
 * @param {string} src
 * @param {AbortSignal} [signal]
 * @param {typeof fetch} [fetcher] The fetch to use (the element's, which sends its access token).
 * @returns {Promise<TileSource>}
 */
export async function loadTileSource(src, signal, fetcher) {
  const url = new URL(src, document.baseURI);
  const { body: text, response } = await request(url, { what: url.href, as: 'text', signal, ...(fetcher ? { fetch: fetcher } : {}) });
  const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  if (text.trimStart().startsWith('{')) {
    return iiifSource(parseJSON(text, url.href, { status: response.status, url: url.href }), url, name);
  }
  const source = dziSource(text, url, name, response.headers.get('tiler-tile-query') ?? '');
  source.visibleEndpoint = tilerEndpoint(url, response);
  return source;
}

/** A Deep Zoom descriptor (`<Image TileSize Overlap Format><Size Width Height/></Image>`). */
export function dziSource(text, url, name = '', tileQuery = '') {
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  const image = doc.getElementsByTagName('Image')[0];
  const size = doc.getElementsByTagName('Size')[0];
  if (!image || !size) {
    throw new HttpError(`${url.href} is neither a Deep Zoom descriptor nor IIIF info.json.`, { kind: 'format', url: url.href });
  }
  const number = (node, attribute) => Number(node.getAttribute(attribute));
  const pyramid = new Pyramid(number(size, 'Width'), number(size, 'Height'), number(image, 'TileSize'), number(image, 'Overlap') || 0);
  const format = image.getAttribute('Format') || 'jpg';
  const prefix = new URL(`${url.pathname.replace(/\.[^/.]*$/, '')}_files/`, url).href;
  // `tiler serve` hands out versioned descriptor URLs (`NAME@VERSION.dzi`): the image's name is without the version.
  const plain = name.replace(/\.dzi$/, '').replace(/@[0-9a-f]{12}$/, '');
  const source = {
    name: plain, pyramid, tileQuery, visibleEndpoint: null,
    tileURL: (l, c, r) => `${prefix}${l}/${c}_${r}.${format}${source.tileQuery ? `?${source.tileQuery}` : ''}`,
  };
  return source;
}

/** An IIIF Image API service (2.x or 3.0): tiles as regions of `tiles[0].width` at power-of-two scale factors. */
export function iiifSource(info, url, name = '') {
  const id = (info.id ?? info['@id'] ?? url.href.replace(/\/info\.json$/, '')).replace(/\/$/, '');
  const tile = info.tiles?.[0] ?? { width: 256 };
  const tileSize = tile.width;
  const pyramid = new Pyramid(info.width, info.height, tileSize, 0);
  const tileURL = (level, col, row) => {
    const frame = pyramid.tileFrame(level, col, row);
    const size = pyramid.tileRect(level, col, row);
    return `${id}/${frame.x},${frame.y},${frame.width},${frame.height}/${size.width},${size.height}/0/default.jpg`;
  };
  return { name: decodeURIComponent(id.split('/').pop() ?? name), pyramid, tileURL, visibleEndpoint: null };
}

/** The visible-rect endpoint of a `.dzi` that `tiler serve` answered (same origin: its `Server` header), else `null`. */
function tilerEndpoint(url, response) {
  if (response.headers.get('server') !== 'tiler') return null;
  const match = /^\/images\/(.+)\.dzi$/.exec(url.pathname);
  if (!match) return null;
  return new URL(`/api/images/${encodeName(decodeURIComponent(match[1]))}/visible`, url).href;
}
