// A `<tiler-viewer>`'s access to private images: the `token` it sends as the bearer on the descriptor and
// visible-rect fetches (tile URLs are signed and need nothing), and what happens when access runs out. A refused
// token fires `tokenexpired` once (the page answers by setting `token` again); a tile refused because its signed URL
// expired makes the element fetch the descriptor again for fresh signed URLs, keeping the view and every tile it has.

import { bearerFetch } from './http.js';
import { loadTileSource } from './tile-source.js';

/** The token state of one element. */
export class ViewerAccess {
  /** @param {HTMLElement & {source: any, src: string, loader: any, invalidate: () => void, open: (src: string) => void}} element */
  constructor(element) {
    this.element = element;
    /** The access token ('' for none). */
    this.token = '';
    /** The last token refused, so that `tokenexpired` fires once per token. */
    this.refused = null;
    this.refreshing = false;
    /** The element's fetch for descriptors and viewport reports: sends the token, notices refusals. */
    this.fetch = bearerFetch(() => this.token, (token) => this.refuse(token));
  }

  /** A new token from the page: fresh signed tile URLs for an open private image, or a retry of a refused open. */
  setToken(value) {
    const token = value ?? '';
    if (token === this.token) return;
    this.token = token;
    this.refused = null;
    const element = this.element;
    if (!element.isConnected || !token) return;
    if (element.source) this.refresh();
    else if (element.src && !element.loading) element.open(element.src);
  }

  /** `token` was refused (401): fires `tokenexpired` (detail: `{src}`) once for it. */
  refuse(token) {
    if (token === this.refused) return;
    this.refused = token;
    this.element.dispatchEvent(new CustomEvent('tokenexpired', { detail: { src: this.element.src } }));
  }

  /** A tile failed with `error`: a private image's tile refused with 401 means its signed URLs expired. */
  tileFailed(error) {
    if (error?.status === 401 && this.element.source?.tileQuery) this.refresh();
  }

  /** Fetches the descriptor again (with the token) and gives the open image its fresh signed tile URLs. */
  async refresh() {
    const element = this.element;
    const source = element.source;
    if (this.refreshing || !source?.tileQuery) return;
    this.refreshing = true;
    try {
      const fresh = await loadTileSource(element.src, undefined, this.fetch);
      if (element.source === source && fresh.tileQuery) {
        source.tileQuery = fresh.tileQuery;
        element.loader?.retry();
        element.invalidate();
      }
    } catch {
      // A refusal has fired `tokenexpired` (through the fetch); anything else leaves the tiles as they are.
    } finally {
      this.refreshing = false;
    }
  }
}
