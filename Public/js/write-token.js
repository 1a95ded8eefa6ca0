// The app page's write token, which lets it upload: given in the link as `#write-token=TOKEN` (a fragment is never
// sent to a server, written to a log or passed on in a Referer), kept for the tab in sessionStorage, and taken out of
// the address at once so that a copied or bookmarked URL does not carry it. A page's script may also set it
// (`tiler.writeToken = …`). Pure apart from `rememberWriteToken`.

/** The hash parameters that carry the token (the second is the query-style spelling). */
const NAMES = ['write-token', 'writeToken'];
/** Where the tab keeps it. */
export const STORAGE_KEY = 'tiler.writeToken';

/**
 * Takes the write token out of a location hash.
 * @param {string} hash `#…` or `…`
 * @returns {{token: string | null, hash: string}} The token (`null` when the hash has none) and the hash without it
 *   (`''` when nothing else is left; other parameters keep their order).
 */
export function takeWriteToken(hash) {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  let token = null;
  for (const name of NAMES) {
    const value = params.get(name);
    if (value !== null && token === null) token = value.trim();
    params.delete(name);
  }
  if (token === null) return { token: null, hash };
  const rest = params.toString();
  return { token, hash: rest ? `#${rest}` : '' };
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
