// The viewer's one way to fetch: every HTTP request it makes (the image list, a `.dzi` or `info.json`, a tile, a
// viewport report) goes through `request`, which turns each way a request can fail into an HttpError whose message
// is one line fit to show to a person — with the server's own words when it sent its JSON `{"error": …}`. An abort
// is not a failure: it rejects with the signal's own reason (an `AbortError`), untouched, so callers can tell it apart.

/**
 * What went wrong: no answer, or one that broke off (`network`); a status outside 200–299 (`status`); an answer that
 * is not what was asked for — not JSON, not an image, not a descriptor (`format`).
 * @typedef {'network' | 'status' | 'format'} ErrorKind
 */

/** A failed request, or an answer the viewer cannot use. */
export class HttpError extends Error {
  /**
   * @param {string} message One line, for people.
   * @param {{kind: ErrorKind, status?: number, url?: string, detail?: string, retryAfter?: number | null}} details
   *   `status` is the HTTP status (0 when there was none); `detail` the server's `error` message, if it sent one;
   *   `retryAfter` the answer's `Retry-After` in seconds (`null` without one).
   */
  constructor(message, { kind, status = 0, url = '', detail = '', retryAfter = null }) {
    super(message);
    this.name = 'HttpError';
    /** @type {ErrorKind} */
    this.kind = kind;
    /** @type {number} */
    this.status = status;
    /** @type {string} */
    this.url = url;
    /** @type {string} */
    this.detail = detail;
    /** Seconds to wait before asking again, as the answer's `Retry-After` said, else `null`. @type {number | null} */
    this.retryAfter = retryAfter;
  }
}

/**
 * @typedef {object} RequestOptions
 * @property {string} what What is asked for, as the messages name it (`the image list`, `tile`, a URL).
 * @property {'json' | 'text' | 'blob'} [as] How to read the body (default `json`).
 * @property {AbortSignal} [signal] Cancels the request; it then rejects with the signal's reason.
 * @property {typeof fetch} [fetch] The fetch to use (default the page's); tests pass a stub.
 */

/**
 * GETs `url` and reads its body. Rejects with an {@link HttpError}: `network` (status 0) when there is no answer or
 * it breaks off, `status` for a status outside 200–299 (the message `WHAT: HTTP STATUS — the server's error`), `format`
 * when `as: 'json'` and the body is not JSON; or, once `signal` is aborted, with the signal's reason.
 * @param {string | URL} url
 * @param {RequestOptions} options
 * @returns {Promise<{body: any, response: Response}>} The body read as asked, and the response (for its headers).
 */
export async function request(url, { what, as = 'json', signal, fetch: fetcher = (...a) => fetch(...a) }) {
  const href = String(url);
  let response;
  try {
    response = await fetcher(href, { signal });
  } catch (error) {
    throw aborted(error, signal) ?? new HttpError(`Could not reach the server for ${what}.`, { kind: 'network', url: href });
  }
  if (!response.ok) throw await statusError(response, what, href, signal);
  let text;
  try {
    if (as === 'blob') return { body: await response.blob(), response };
    text = await response.text();
  } catch (error) {
    throw aborted(error, signal) ?? new HttpError(`${what}: the answer broke off.`, { kind: 'network', status: response.status, url: href });
  }
  return { body: as === 'text' ? text : parseJSON(text, what, { status: response.status, url: href }), response };
}

/**
 * Parses `text` as JSON, or throws a `format` {@link HttpError} naming `what`.
 * @param {string} text
 * @param {string} what
 * @param {{status?: number, url?: string}} [where] The response it came from, for the error.
 */
export function parseJSON(text, what, { status = 0, url = '' } = {}) {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(`${what}: the answer is not JSON.`, { kind: 'format', status, url });
  }
}

/** The error for a status outside 200–299, with the server's `error` message when the body is its JSON. */
async function statusError(response, what, url, signal) {
  let detail = '';
  try {
    const json = await response.json();
    if (typeof json?.error === 'string') detail = json.error;
  } catch {
    // Not the server's JSON error (or cut short): the status says enough.
  }
  if (signal?.aborted) return signal.reason;
  const message = `${what}: HTTP ${response.status}${detail ? ` — ${detail}` : ''}`;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  return new HttpError(message, { kind: 'status', status: response.status, url, detail, retryAfter });
}

/**
 * A `Retry-After` value in seconds from now: delay-seconds (`1`) or an HTTP date (then at least 0); `null` when
 * absent or unreadable.
 * @param {string | null} value
 * @param {number} [now] The time in ms since the epoch (for dates).
 * @returns {number | null}
 */
export function parseRetryAfter(value, now = Date.now()) {
  const text = (value ?? '').trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[A-Za-z]{3}, /.test(text)) return null; // An HTTP date (`Thu, 26 Nov 2026 20:00:05 GMT`), or nothing usable.
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/** The error to pass on if the request was aborted: the signal's reason, or an `AbortError` from elsewhere; else `null`. */
function aborted(error, signal) {
  if (signal?.aborted) return signal.reason;
  return error?.name === 'AbortError' ? error : null;
}

/**
 * A fetch for requests that carry an access token: sends `token()` (when not empty) as `Authorization: Bearer`, and
 * calls `onRefused(token)` when the answer to such a request is 401 (the token expired or was revoked). Tile
 * requests never need it: a private image's tile URLs are signed.
 * @param {() => string} token The current token ('' for none).
 * @param {(token: string) => void} onRefused
 * @param {typeof fetch} [fetcher] The fetch to wrap (default the page's); tests pass a stub.
 * @returns {typeof fetch}
 */
export function bearerFetch(token, onRefused, fetcher = (...a) => fetch(...a)) {
  return async (url, init = {}) => {
    const value = token();
    if (!value) return fetcher(url, init);
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${value}`);
    const response = await fetcher(url, { ...init, headers });
    if (response.status === 401) onRefused(value);
    return response;
  };
}
