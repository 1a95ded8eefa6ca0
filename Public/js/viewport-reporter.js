// The viewport loop to the server: reports what the element shows to `tiler serve`'s visible-rect endpoint — on every
// settle, and at most every `INTERVAL_MS` while the content moves — with the screen's contentScale, a one-ring
// prefetch and a per-element viewer id, so the server's viewport-aware cache loads and keeps those tiles. The
// answer's tile order is kept for the view it describes; drawing never waits for it. Reports are fire-and-forget:
// never aborted, and a failed one (no answer, an error status, not JSON) is dropped without a word.

import { request } from './http.js';

/** The least time between two reports while the content moves, in ms (at most four a second). */
export const INTERVAL_MS = 250;

/**
 * @typedef {import('./geometry.js').Viewport} Viewport
 */

/** The key that says whether an answer describes the view now shown (offsets to 1/100 point). */
export function viewKey(v) {
  return [v.x, v.y, v.width, v.height, v.zoomScale, v.contentScale].map((n) => Math.round(n * 100) / 100).join(',');
}

/**
 * `requests` (the overview first, then the local geometry's order) with the tiles the server listed moved into the
 * server's order; tiles it did not list keep their place after them.
 * @param {{key: string, url: string}[]} requests
 * @param {string[]} urls The answer's tile URLs, absolute.
 */
export function orderedLike(requests, urls) {
  const rank = new Map(urls.map((url, i) => [url, i]));
  const [overview, ...rest] = requests;
  const listed = rest.filter((r) => rank.has(r.url)).sort((a, b) => rank.get(a.url) - rank.get(b.url));
  return [overview, ...listed, ...rest.filter((r) => !rank.has(r.url))];
}

/**
 * Sends throttled visible-rect queries to one endpoint.
 */
export class ViewportReporter {
  /**
   * @param {string} endpoint The visible-rect URL without a query (`…/api/images/NAME/visible`).
   * @param {{prefetch?: number, fetch?: typeof fetch}} [options] `fetch` is the page's unless given (tests pass a stub).
   */
  constructor(endpoint, { prefetch = 1, fetch: fetcher } = {}) {
    this.endpoint = endpoint;
    this.prefetch = prefetch;
    this.fetch = fetcher;
    /** A random id per element, sent as `viewer` (the server may ignore it). */
    this.viewer = Math.random().toString(36).slice(2, 10);
    this.lastSent = -Infinity;
    this.lastKey = '';
    this.timer = 0;
    /** The last answer: the view it is for and its tile URLs in the server's order. */
    this.answer = null;
    /** Reports sent so far. */
    this.sent = 0;
  }

  /**
   * The view changed (`settled`: it came to rest) at time `now` ms: report it now, or soon if one was just sent.
   * @param {Viewport} viewport
   * @param {boolean} settled
   * @param {number} now
   */
  report(viewport, settled, now) {
    const key = viewKey(viewport);
    if (key === this.lastKey) return;
    clearTimeout(this.timer);
    const wait = this.lastSent + INTERVAL_MS - now;
    if (settled || wait <= 0) return this.send(viewport, key, now);
    this.timer = setTimeout(() => this.send(viewport, key, performance.now()), wait);
  }

  /** The server's tile URLs for the view `key`, in its order, or `null` if no answer for that view has arrived. */
  orderFor(key) {
    return this.answer?.key === key ? this.answer.urls : null;
  }

  send(viewport, key, now) {
    this.lastSent = now;
    this.lastKey = key;
    this.sent += 1;
    const query = new URLSearchParams({
      x: String(viewport.x), y: String(viewport.y), width: String(viewport.width), height: String(viewport.height),
      zoomScale: String(viewport.zoomScale), contentScale: String(viewport.contentScale ?? 1),
      prefetch: String(this.prefetch), viewer: this.viewer,
    });
    request(`${this.endpoint}?${query}`, { what: 'the viewport report', fetch: this.fetch })
      .then(({ body }) => {
        if (body?.tiles) this.answer = { key, urls: body.tiles.map((t) => new URL(t.url, this.endpoint).href) };
      })
      .catch(() => {}); // A report is advice to the server's cache; losing one changes nothing on screen.
  }

  /** Stops a pending report. */
  cancel() {
    clearTimeout(this.timer);
  }
}
