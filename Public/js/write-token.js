// The app page's write token, which lets it upload: given in the link as `#write-token=TOKEN` (a fragment is never
// sent to a server, written to a log or passed on in a Referer), kept for the tab in sessionStorage, and taken out of
// the address at once so that a copied or bookmarked URL does not carry it. A page's script may also set it
// (`tiler.writeToken = …`). Pure apart from `rememberWriteToken`.

/** The hash parameters that carry the token (the second is the query-style spelling). */
const NAMES = ['write-token', 'writeToken'];
/** Where the tab keeps it. */
export const STORAGE_KEY = 'tiler.writeToken';

/**
 * Takes the first of the parameters `names` out of a query or hash (`?…`, `#…` or bare), removing all of them.
 * @param {string} text
 * @param {string[]} names
 * @returns {{token: string | null, rest: string}} The value (trimmed; `null` when none is there) and the text without
 *   them, with its leading `?` or `#` (`''` when nothing else is left; other parameters keep their order).
 */
export function takeParameter(text, names) {
  const mark = text.startsWith('#') || text.startsWith('?') ? text[0] : '';
  const params = new URLSearchParams(mark ? text.slice(1) : text);
  let token = null;
  for (const name of names) {
    const value = params.get(name);
    if (value !== null && token === null) token = value.trim();
    params.delete(name);
  }
  if (token === null) return { token: null, rest: text };
  const rest = params.toString();
  return { token, rest: rest ? `${mark || '#'}${rest}` : '' };
}

/**
 * Takes the write token out of a location hash.
 * @param {string} hash `#…` or `…`
 * @returns {{token: string | null, hash: string}} The token (`null` when the hash has none) and the hash without it
 *   (`''` when nothing else is left; other parameters keep their order).
 */
export function takeWriteToken(hash) {
  const { token, rest } = takeParameter(hash.startsWith('#') ? hash : `#${hash}`, NAMES);
  return { token, hash: token === null ? hash : rest };
}

/**
 * The token for this page: from the address (then stored for the tab and removed from the address, keeping the
 * rest of it), else the one the tab stored earlier; `''` for none. An empty `#write-token=` forgets a stored one.
 * @param {Location} location
 * @param {History} history
 * @param {Storage | null} storage
 */
export function rememberWriteToken(location, history, storage) {
  const { token, hash } = takeWriteToken(location.hash);
  if (token === null) return storage?.getItem(STORAGE_KEY) ?? '';
  if (token) storage?.setItem(STORAGE_KEY, token);
  else storage?.removeItem(STORAGE_KEY);
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
  return token;
}
