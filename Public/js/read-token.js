// The app page's read token, which opens private images: given in a link as `?token=TOKEN` or `#token=TOKEN` (the
// fragment is better: it never reaches a server's log or a Referer), kept for the tab in sessionStorage and taken out
// of the address and its history entry at once, as the write token is (write-token.js). A page that signs people in
// may also give it (`tiler.readToken = …`, or answering the `tiler:needtoken` event: see app.js). Pure apart from
// `rememberReadToken`.

import { takeParameter } from './write-token.js';

/** The parameters that carry the token. */
const NAMES = ['token', 'read-token'];
/** Where the tab keeps it. */
export const STORAGE_KEY = 'tiler.readToken';

/**
 * Takes the read token out of a query and a hash (the hash's wins when both have one).
 * @param {string} search `?…` or `''`
 * @param {string} hash `#…` or `''`
 * @returns {{token: string | null, search: string, hash: string}} The token (`null` when neither has one) and both
 *   without it.
 */
export function takeReadToken(search, hash) {
  const fromQuery = takeParameter(search, NAMES);
  const fromHash = takeParameter(hash, NAMES);
  const token = fromHash.token ?? fromQuery.token;
  return { token, search: fromQuery.token === null ? search : fromQuery.rest.replace(/^#/, '?'), hash: fromHash.token === null ? hash : fromHash.rest };
}

/**
 * The read token for this page: from the address (then stored for the tab and removed from the address, keeping the
 * rest of it), else the one the tab stored earlier; `''` for none. An empty `#token=` forgets a stored one.
 * @param {Location} location
 * @param {History} history
 * @param {Storage | null} storage
 * @returns {{token: string, fromLink: boolean}}
 */
export function rememberReadToken(location, history, storage) {
  const { token, search, hash } = takeReadToken(location.search, location.hash);
  if (token === null) return { token: storage?.getItem(STORAGE_KEY) ?? '', fromLink: false };
  storeReadToken(storage, token);
  history.replaceState(history.state, '', `${location.pathname}${search}${hash}`);
  return { token, fromLink: true };
}

/** Keeps `token` for the tab ('' forgets it). */
export function storeReadToken(storage, token) {
  try {
    if (token) storage?.setItem(STORAGE_KEY, token);
    else storage?.removeItem(STORAGE_KEY);
  } catch {
    // Storage full or refused: the token lasts as long as the page.
  }
}
