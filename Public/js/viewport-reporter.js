// The viewport loop to the server: reports to `tiler serve`'s visible-rect endpoint (docs/visible-query.md) where the element's view is and
// where it is going — the end state of every animation as it starts (a flick's resting point after the delegate had
// its say, an animated scroll or zoom), and while the content moves, the stretch it will cover next — with the
// screen's contentScale, a one-ring prefetch and a per-element viewer id, so that the server's viewport-aware cache
// has the tiles in memory when the element asks for them. Reports are rate-limited (a token bucket: at most one per
// `INTERVAL_MS` on average, `BURST` at once), fire-and-forget, never aborted; a failed one is dropped without a word,
// and the same view is reported again only after a wait that doubles with every failure in a row (`RETRY_MS` up to
// `RETRY_MAX_MS`): a server that is down is not asked about an unchanged view four times a second.
//
// Order on the wire: while reports are answered, a tile is requested once an answer has named it (the server has
// queued it for warming by then, so the request finds it in memory or joins its read), or after `HOLD_MS` at most;
// when reports fail, tiles are requested at once, as without a server.

import { request } from './http.js';
import { tileKey } from './tile-layer.js';

/** The least time between two reports while the content moves, in ms; also the bucket's refill time per report. */
export const INTERVAL_MS = 250;
/** Reports that may go at once (the bucket's size): a flick's target right after the drag's last report. */
export const BURST = 2;
/** The longest a tile waits for an answer to name it before it is requested anyway, in ms. */
export const HOLD_MS = 300;
/** The wait before a view whose report failed is reported again, doubling with each failure in a row up to the most, ms. */
export const RETRY_MS = 1000;
export const RETRY_MAX_MS = 30000;
/** Tiles remembered as named; the oldest are forgotten first. */
const NAMED_LIMIT = 4096;
/** Views remembered as reported (a view reported again is not sent). */
const RECENT_KEYS = 4;

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
 * Sends rate-limited visible-rect queries to one endpoint and says which tiles may be requested.
 */
export class ViewportReporter {
  /**
   * @param {string} endpoint The visible-rect URL without a query (`…/api/images/NAME/visible`).
   * @param {{prefetch?: number, fetch?: typeof fetch, onChange?: () => void}} [options] `fetch` is the page's unless
   *   given (tests pass a stub); `onChange` runs when an answer names new tiles or a held tile's wait is over.
   */
  constructor(endpoint, { prefetch = 1, fetch: fetcher, onChange = () => {} } = {}) {
    this.endpoint = endpoint;
    this.prefetch = prefetch;
    this.fetch = fetcher;
    this.onChange = onChange;
    /** A random id per element, sent as `viewer` (the server may ignore it). */
    this.viewer = Math.random().toString(36).slice(2, 10);
    this.lastSent = -Infinity;
    this.tokens = BURST;
    this.tokensAt = -Infinity;
    /** The last views sent, by key. */
    this.recent = [];
    /** The report waiting for its turn: `{viewport, key, urgent}`. */
    this.pending = null;
    this.timer = 0;
    this.wakeTimer = 0;
    /** The last answer: the view it is for and its tile URLs in the server's order. */
    this.answer = null;
    /** The keys (`level/col_row`) of the tiles some answer listed, the oldest first: by key, not URL, so that an
     * element opened on an unversioned `.dzi` matches the server's versioned tile URLs. */
    this.named = new Set();
    /** Tiles wanted but not yet named: key → when first wanted (ms). */
    this.waiting = new Map();
    /** How long an unnamed tile may wait, in ms (0: tiles never wait; bench/viewport-real.sh compares). */
    this.holdMs = HOLD_MS;
    /** Whether the last report was answered (else tiles are not held). */
    this.healthy = true;
    /** Failed reports in a row, and the view whose report failed last with when it may be sent again (ms). */
    this.failures = 0;
    this.failed = null;
    this.retryTimer = 0;
    /** Reports sent so far; animations' predicted end states queued (a queued one may give way to a newer one). */
    this.sent = 0;
    this.predicted = 0;
  }

  /**
   * The view changed (`settled`: it came to rest) at time `now` ms: report `viewport` (the view, or the stretch it
   * is about to cover) now, or once the rate allows. A settled view goes as soon as the bucket has a report.
   * @param {Viewport} viewport
   * @param {boolean} settled
   * @param {number} now
   */
  report(viewport, settled, now) {
    this.enqueue(viewport, settled, now);
  }

  /** Where an animation that starts at `now` ends: reported as soon as the bucket has a report. */
  predict(viewport, now) {
    if (this.enqueue(viewport, true, now)) this.predicted += 1;
  }

  /** Queues a report (replacing a pending one unless that one is urgent and this is not); whether it is new. */
  enqueue(viewport, urgent, now) {
    const key = viewKey(viewport);
    if (this.recent.includes(key) || this.pending?.key === key) return false;
    if (this.failed?.key === key && now < this.failed.until) {
      // Its report failed a moment ago: ask again once the wait is over (the view may still be the same then).
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.onChange(), this.failed.until - now);
      return false;
    }
    if (this.pending?.urgent && !urgent) return false;
    this.pending = { viewport, key, urgent };
    this.flush(now);
    return true;
  }

  /** Sends the pending report if the rate allows, else sets a timer for when it will. */
  flush(now) {
    clearTimeout(this.timer);
    const p = this.pending;
    if (!p) return;
    this.tokens = Math.min(BURST, this.tokens + Math.max(0, now - this.tokensAt) / INTERVAL_MS);
    this.tokensAt = now;
    const wait = Math.max((1 - this.tokens) * INTERVAL_MS, p.urgent ? 0 : this.lastSent + INTERVAL_MS - now);
    if (wait > 0) {
      this.timer = setTimeout(() => this.flush(performance.now()), wait);
      return;
    }
    this.pending = null;
    this.tokens -= 1;
    this.send(p.viewport, p.key, now);
  }

  /** The server's tile URLs for the view `key`, in its order, or `null` if no answer for that view has arrived. */
  orderFor(key) {
    return this.answer?.key === key ? this.answer.urls : null;
  }

  /**
   * Of `requests` (the overview first, most wanted first), those to request at `now` ms: the overview, the tiles an
   * answer named, and those that have waited {@link HOLD_MS}; all of them while reports fail.
   * @param {{key: string, url: string}[]} requests
   * @param {number} now
   */
  ready(requests, now) {
    clearTimeout(this.wakeTimer);
    if (!this.healthy) {
      this.waiting.clear();
      return requests;
    }
    const waiting = new Map();
    let wake = Infinity;
    const ready = requests.filter((r, i) => {
      if (i === 0 || this.named.has(r.key)) return true;
      const since = this.waiting.get(r.key) ?? now;
      waiting.set(r.key, since);
      if (now - since >= this.holdMs) return true;
      wake = Math.min(wake, since + this.holdMs);
      return false;
    });
    this.waiting = waiting;
    if (wake < Infinity) this.wakeTimer = setTimeout(() => this.onChange(), wake - now);
    return ready;
  }

  send(viewport, key, now) {
    this.lastSent = now;
    this.recent = [key, ...this.recent.slice(0, RECENT_KEYS - 1)];
    this.sent += 1;
    const query = new URLSearchParams({
      x: String(viewport.x), y: String(viewport.y), width: String(viewport.width), height: String(viewport.height),
      zoomScale: String(viewport.zoomScale), contentScale: String(viewport.contentScale ?? 1),
      prefetch: String(this.prefetch), viewer: this.viewer,
    });
    request(`${this.endpoint}?${query}`, { what: 'the viewport report', fetch: this.fetch })
      .then(({ body }) => {
        if (!Array.isArray(body?.tiles)) throw new TypeError('no tiles in the answer');
        this.healthy = true;
        this.failures = 0;
        this.failed = null;
        const urls = body.tiles.map((t) => new URL(t.url, this.endpoint).href);
        this.answer = { key, urls };
        this.remember(body.tiles.map((t) => tileKey(t.level, t.col, t.row)));
        this.onChange();
      })
      // A report is advice to the server's cache; losing one changes nothing on screen, but tiles stop waiting.
      .catch(() => {
        this.healthy = false;
        this.recent = this.recent.filter((k) => k !== key);
        this.failures += 1;
        this.failed = { key, until: now + Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** Math.min(this.failures - 1, 16)) };
        this.onChange();
      });
  }

  /** Adds `keys` to the named tiles, forgetting the oldest beyond {@link NAMED_LIMIT}. */
  remember(keys) {
    for (const key of keys) {
      this.named.delete(key);
      this.named.add(key);
    }
    for (const key of this.named) {
      if (this.named.size <= NAMED_LIMIT) break;
      this.named.delete(key);
    }
  }

  /** Stops a pending report and a pending wake-up. */
  cancel() {
    clearTimeout(this.timer);
    clearTimeout(this.wakeTimer);
    clearTimeout(this.retryTimer);
    this.pending = null;
  }
}
