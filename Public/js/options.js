// The viewer's settings, read from the page's query string so they can be set per link:
// `?maxScale=4&cache=300&prefetch=1&inflight=6`. Pure.

import { DEFAULT_CACHE_CAPACITY } from './tile-cache.js';
import { DEFAULT_MAX_DEVICE_PIXELS_PER_IMAGE_PIXEL } from './scroll-view.js';

/**
 * @typedef {{maxScale: number, cacheCapacity: number, prefetch: number, maxInFlight: number|null}} Options
 *   `maxScale`: maximumZoomScale in device pixels per image pixel; `cacheCapacity`: tiles kept;
 *   `prefetch`: whole tiles of margin loaded around the visible ones; `maxInFlight`: tile requests at once, `null`
 *   (no `inflight`) for the viewer's choice by protocol (6 over HTTP/1.1, 64 over HTTP/2 or 3: see in-flight.js).
 */

/** The defaults. @type {Readonly<Options>} */
export const DEFAULT_OPTIONS = Object.freeze({
  maxScale: DEFAULT_MAX_DEVICE_PIXELS_PER_IMAGE_PIXEL,
  cacheCapacity: DEFAULT_CACHE_CAPACITY,
  prefetch: 1,
  maxInFlight: null,
});

/** Each setting: its query name, how to read it and its valid range. */
const FIELDS = [
  { key: 'maxScale', name: 'maxScale', integer: false, min: 0.01, max: 1024 },
  { key: 'cacheCapacity', name: 'cache', integer: true, min: 8, max: 100_000 },
  { key: 'prefetch', name: 'prefetch', integer: true, min: 0, max: 4 },
  { key: 'maxInFlight', name: 'inflight', integer: true, min: 1, max: 64 },
];

/**
 * Reads the options from a query string (`location.search`). Missing values take their default; a value that is
 * not a number in range is ignored and reported in `problems` (one line each).
 * @param {string} search
 * @returns {{options: Options, problems: string[]}}
 */
export function parseOptions(search) {
  const params = new URLSearchParams(search);
  const options = { ...DEFAULT_OPTIONS };
  const problems = [];
  for (const field of FIELDS) {
    const text = params.get(field.name);
    if (text === null) continue;
    const value = Number(text);
    const isNumber = text.trim() !== '' && Number.isFinite(value) && (!field.integer || Number.isInteger(value));
    const ok = isNumber && value >= field.min && value <= field.max;
    if (ok) options[field.key] = value;
    else problems.push(`${field.name} must be ${field.integer ? 'an integer' : 'a number'} from ${field.min} to ${field.max} (got "${text}")`);
  }
  return { options, problems };
}
