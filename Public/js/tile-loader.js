// Fetches tiles in the order the geometry gives them (nearest the viewport centre first) with a bounded number of
// requests in flight. Each call to `want` replaces the queue: tiles no longer wanted are dropped from it and their
// requests aborted, tiles still wanted keep their place or move down. Failures are remembered until `retry`.
// A tile that is not there yet (404 with `Retry-After`: a pyramid still being sliced) is not a failure: it is asked
// for again after the server's delay, doubling on each miss up to NOT_YET_MAX_DELAY_MS, and only while it is still
// wanted — so at most the wanted tiles, each at most once a delay, never a storm. A tile that failed for want of
// any answer (the server cannot be reached) is asked for again by itself after a delay that doubles with every such
// failure in a row (1 s, 2 s, 4 s … NETWORK_RETRY_MAX_MS), until one arrives.

import { fetchTile } from './api.js';

/** The longest wait between two requests for a tile that is not there yet, in ms, however often it was missing. */
export const NOT_YET_MAX_DELAY_MS = 4000;
/** How many times a tile that is not there yet is asked for before it counts as failed (about 13 minutes). */
export const NOT_YET_MAX_ATTEMPTS = 200;

/** The first and the longest wait before failed tiles are asked for again when the server could not be reached, in ms. */
export const NETWORK_RETRY_MS = 1000;
export const NETWORK_RETRY_MAX_MS = 30000;

/** The wait before the `failures`-th automatic retry in a row (≥ 1) after the server could not be reached, in ms. */
export function networkRetryDelay(failures) {
  return Math.min(NETWORK_RETRY_MAX_MS, NETWORK_RETRY_MS * 2 ** Math.min(Math.max(failures - 1, 0), 16));
}

/**
 * The wait before asking again for a tile missing for the `attempts`-th time, in ms: the server's `Retry-After`
 * (at least 1/4 s), doubled for each earlier miss up to {@link NOT_YET_MAX_DELAY_MS} (never below the server's).
 * @param {number} retryAfter Seconds.
 * @param {number} attempts ≥ 1.
 */
export function notYetDelay(retryAfter, attempts) {
  const base = Math.max(250, retryAfter * 1000);
  return Math.max(base, Math.min(NOT_YET_MAX_DELAY_MS, base * 2 ** Math.min(attempts - 1, 16)));
}

/** Whether `error` says the tile does not exist yet but will (404 with `Retry-After`). */
export function isNotYet(error) {
  return error?.status === 404 && typeof error.retryAfter === 'number';
}

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
   *   `load` fetches and decodes one tile; `onLoad` and `onError` report each outcome (never for aborted requests,
   *   nor for a tile that is not there yet). `onWake` runs when a tile that was not there yet may be asked for again
   *   (the caller then calls `want` with what it wants now). `clock` (ms), `schedule` and `unschedule` are the
   *   page's `performance.now`, `setTimeout` and `clearTimeout` unless given (tests pass their own).
   */
  constructor({ maxInFlight = 6, load = fetchTile, onLoad, onError, onWake = () => {}, clock = () => performance.now(),
    schedule = (f, ms) => setTimeout(f, ms), unschedule = (id) => clearTimeout(id) }) {
    this.maxInFlight = maxInFlight;
    this.load = load;
    this.onLoad = onLoad;
    this.onError = onError;
    this.onWake = onWake;
    this.clock = clock;
    this.schedule = schedule;
    this.unschedule = unschedule;
    /** Tiles that were not there yet: key → {attempts, due} (`due`: when they may be asked for again, in ms). */
    this.notYet = new Map();
    this.wakeTimer = null;
    this.wakeAt = Infinity;
    /** @type {Map<string, {controller: AbortController, url: string}>} */
    this.inFlight = new Map();
    /** @type {Map<string, Error>} */
    this.failed = new Map();
    /** @type {TileRequest[]} */
    this.queue = [];
    /** Counts for tests: requests started, aborted, loaded, failed, answered "not yet". */
    this.counts = { started: 0, aborted: 0, loaded: 0, failed: 0, notYet: 0 };
    /** Automatic retries so far (for tests). */
    this.autoRetries = 0;
    /** Automatic retries in a row after the server could not be reached (0 once a tile arrives). */
    this.networkFailures = 0;
    this.networkTimer = null;
    /** When the next automatic retry is due (ms, this loader's clock), or `null`. */
    this.networkRetryAt = null;
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
    const now = this.clock();
    this.queue = requests.filter((r) => !isLoaded(r.key) && !this.inFlight.has(r.key) && !this.failed.has(r.key) && !this.isWaiting(r.key, now));
    this.pump();
  }

  /** Whether tile `key` was not there yet and its wait is not over at `now` (ms). */
  isWaiting(key, now = this.clock()) {
    return (this.notYet.get(key)?.due ?? -Infinity) > now;
  }

  /** Whether tile `key` answered "not yet" (and has not arrived since): its coarser tiles stand in for it. */
  isMissing(key) {
    return this.notYet.has(key);
  }

  /** Forgets failures and waits so that those tiles are requested again the next time they are wanted. */
  retry() {
    this.failed.clear();
    this.notYet.clear();
    this.unschedule(this.networkTimer);
    this.networkTimer = null;
    this.networkRetryAt = null;
  }

  /** Whether every failure so far is the server not answering (then they are retried by themselves). */
  get unreachable() {
    if (this.failed.size === 0) return false;
    for (const error of this.failed.values()) if (error?.kind !== 'network') return false;
    return true;
  }

  /** Arms the next automatic retry of the tiles that failed for want of an answer (one timer for all of them). */
  armNetworkRetry() {
    if (this.networkTimer !== null) return;
    this.networkFailures += 1;
    const delay = networkRetryDelay(this.networkFailures);
    this.networkRetryAt = this.clock() + delay;
    this.networkTimer = this.schedule(() => {
      this.networkTimer = null;
      this.networkRetryAt = null;
      let any = false;
      for (const [key, error] of this.failed) {
        if (error?.kind !== 'network') continue;
        this.failed.delete(key);
        any = true;
      }
      if (any) this.autoRetries += 1;
      this.onWake();
    }, delay);
  }

  /** Aborts everything. */
  cancelAll() {
    for (const flight of this.inFlight.values()) flight.controller.abort();
    this.inFlight.clear();
    this.queue = [];
  }

  /** Aborts everything and forgets failures and waits: the tiles are to come from another source. */
  reset() {
    this.cancelAll();
    this.retry();
    this.networkFailures = 0;
    this.unschedule(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAt = Infinity;
  }

  /** Tile `key` is not there yet: waits before it may be asked for again, or fails after too many attempts. */
  postpone(key, error) {
    const attempts = (this.notYet.get(key)?.attempts ?? 0) + 1;
    if (attempts > NOT_YET_MAX_ATTEMPTS) {
      this.notYet.delete(key);
      this.fail(key, error);
      return;
    }
    const due = this.clock() + notYetDelay(error.retryAfter, attempts);
    this.notYet.set(key, { attempts, due });
    this.counts.notYet += 1;
    this.armWake(due);
  }

  /** Makes sure a wake comes at `due` (ms) or before. */
  armWake(due) {
    if (due >= this.wakeAt) return;
    this.unschedule(this.wakeTimer);
    this.wakeAt = due;
    this.wakeTimer = this.schedule(() => this.wake(), Math.max(0, due - this.clock()));
  }

  /** A wait is over: lets the caller say what it wants now, then waits for the next wait to end. */
  wake() {
    this.wakeTimer = null;
    this.wakeAt = Infinity;
    const now = this.clock();
    let next = Infinity;
    for (const { due } of this.notYet.values()) if (due > now && due < next) next = due;
    this.onWake();
    if (next < Infinity) this.armWake(next);
  }

  /** Remembers a failure until `retry` (or, when the server could not be reached, the automatic retry) and reports it. */
  fail(key, error) {
    this.failed.set(key, error);
    this.counts.failed += 1;
    if (error?.kind === 'network') this.armNetworkRetry();
    this.onError(key, error);
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
        this.notYet.delete(key);
        this.networkFailures = 0;
        this.counts.loaded += 1;
        this.onLoad(key, bitmap);
        this.pump();
      },
      (error) => {
        if (controller.signal.aborted) return;
        this.inFlight.delete(key);
        if (isNotYet(error)) this.postpone(key, error);
        else this.fail(key, error);
        this.pump();
      },
    );
  }
}
