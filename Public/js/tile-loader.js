// Fetches tiles in the order the geometry gives them (nearest the viewport centre first) with a bounded number of
// requests in flight. Each call to `want` replaces the queue: tiles no longer wanted are dropped from it and their
// requests aborted, tiles still wanted keep their place or move down. Failures are remembered until `retry`.

import { fetchTile } from './api.js';

/**
 * @typedef {{key: string, url: string}} TileRequest
 */

/**
 * A prioritised, cancellable tile fetcher.
 */
export class TileLoader {
  /**
   * @param {{maxInFlight?: number, load?: (url: string, signal: AbortSignal) => Promise<ImageBitmap>,
   *   onLoad: (key: string, bitmap: ImageBitmap) => void, onError: (key: string, error: Error) => void}} options
   *   `load` fetches and decodes one tile; `onLoad` and `onError` report each outcome (never for aborted requests).
   */
  constructor({ maxInFlight = 6, load = fetchTile, onLoad, onError }) {
    this.maxInFlight = maxInFlight;
    this.load = load;
    this.onLoad = onLoad;
    this.onError = onError;
    /** @type {Map<string, {controller: AbortController, url: string}>} */
    this.inFlight = new Map();
    /** @type {Map<string, Error>} */
    this.failed = new Map();
    /** @type {TileRequest[]} */
    this.queue = [];
    /** Counts for tests: requests started, aborted, loaded, failed. */
    this.counts = { started: 0, aborted: 0, loaded: 0, failed: 0 };
  }

  /** Whether nothing is queued or in flight. */
  get isIdle() {
    return this.inFlight.size === 0 && this.queue.length === 0;
  }

  /**
   * Replaces what is wanted, most important first; aborts in-flight requests for tiles not in `requests`.
   * @param {TileRequest[]} requests
   * @param {(key: string) => boolean} isLoaded Whether a tile is already at hand (skipped).
   */
  want(requests, isLoaded) {
    const keys = new Set(requests.map((r) => r.key));
    for (const [key, flight] of this.inFlight) {
      if (keys.has(key)) continue;
      flight.controller.abort();
      this.inFlight.delete(key);
      this.counts.aborted += 1;
    }
    this.queue = requests.filter((r) => !isLoaded(r.key) && !this.inFlight.has(r.key) && !this.failed.has(r.key));
    this.pump();
  }

  /** Forgets failures so that those tiles are requested again the next time they are wanted. */
  retry() {
    this.failed.clear();
  }

  /** Aborts everything. */
  cancelAll() {
    for (const flight of this.inFlight.values()) flight.controller.abort();
    this.inFlight.clear();
    this.queue = [];
  }

  /** Starts queued requests while there is room. */
  pump() {
    while (this.inFlight.size < this.maxInFlight && this.queue.length > 0) this.start(this.queue.shift());
  }

  /** @param {TileRequest} request */
  start({ key, url }) {
    const controller = new AbortController();
    this.inFlight.set(key, { controller, url });
    this.counts.started += 1;
    this.load(url, controller.signal).then(
      (bitmap) => {
        if (controller.signal.aborted) return bitmap.close();
        this.inFlight.delete(key);
        this.counts.loaded += 1;
        this.onLoad(key, bitmap);
        this.pump();
      },
      (error) => {
        if (controller.signal.aborted) return;
        this.inFlight.delete(key);
        this.failed.set(key, error);
        this.counts.failed += 1;
        this.onError(key, error);
        this.pump();
      },
    );
  }
}
