// `<tiler-viewer>`'s UIScrollView methods, over the element's ScrollView and ScrollController: moves and zooms from
// code (at once, or animated with UIKit's delegate sequence), scroll-to-top, and the indicators' flash; and, not
// UIKit, moving to another version of the image shown (`replaceSource`) without touching the view.

import { ViewerProperties, positive } from './tiler-viewer-properties.js';
import { loadTileSource } from './tile-source.js';
import { adoptSource, sameGeometry } from './source-swap.js';

/**
 * The element's base class: UIScrollView's methods on top of its properties.
 */
export class ViewerMethods extends ViewerProperties {
  /** Moves the content offset to `p` (points), not clamped, as UIKit; animated ends in `didEndScrollingAnimation`. */
  setContentOffset(p, animated = false) {
    if (!this.scrollView) return;
    this.controller.moveTo({ zoomScale: this.scrollView.zoomScale, x: Number(p.x), y: Number(p.y) }, animated, performance.now());
  }

  /**
   * Zooms to `scale` (clamped to the limits) around the centre of the area inside the insets: the image point there
   * stays there unless the offset has to be clamped. Animated, it is a zoom to the delegate (`willBeginZooming` …
   * `didEndZooming`).
   */
  setZoomScale(scale, animated = false) {
    const sv = this.scrollView;
    if (!sv) return;
    this.controller.moveTo(sv.zoomedToView(positive(scale, 'zoomScale'), sv.centre), animated, performance.now());
  }

  /** UIKit's `zoom(to:animated:)`: shows `rect` (image pixels) as large as the limits allow, centred. */
  zoomToRect(rect, animated = false) {
    const sv = this.scrollView;
    if (!sv) return;
    const view = sv.zoomToRectView({ minX: rect.x, minY: rect.y, maxX: rect.x + rect.width, maxY: rect.y + rect.height });
    this.controller.moveTo(view, animated, performance.now());
  }

  /**
   * Scrolls the least distance that shows `rect` (zoomed-content points, the coordinates of `contentOffset`) inside
   * the insets; nothing if it is visible already or empty (no width or no height, as UIKit). A rect larger than the
   * area shows its top-left part.
   */
  scrollRectToVisible(rect, animated = false) {
    const sv = this.scrollView;
    if (!sv || !(rect.width > 0 && rect.height > 0)) return;
    const i = sv.contentInset;
    const inner = sv.innerSize;
    const axis = (offset, start, length, low, size) => {
      if (start < offset + low || length > size) return start - low;
      if (start + length > offset + low + size) return start + length - low - size;
      return offset;
    };
    const target = sv.restingOffset({ x: axis(sv.x, rect.x, rect.width, i.left, inner.width), y: axis(sv.y, rect.y, rect.height, i.top, inner.height) });
    if (target.x === sv.x && target.y === sv.y) return;
    this.controller.moveTo({ zoomScale: sv.zoomScale, ...target }, animated, performance.now());
  }

  /**
   * UIKit's scroll-to-top (its status-bar tap; here also the Home key): with `scrollsToTop` and `isScrollEnabled`,
   * unless the content is at its top already, asks the delegate (`scrollViewShouldScrollToTop`, and a cancelable
   * `shouldscrolltotop` event), then animates to the top (`x` and the zoom unchanged) and sends `didScrollToTop`.
   * @returns {boolean} Whether it scrolls.
   */
  scrollToTop() {
    const c = this.controller;
    if (!c || !this.scrollsToTop || !this.isScrollEnabled || c.isAtTop) return false;
    if (!this.ask('shouldScrollToTop')) return false;
    return c.scrollToTop(performance.now());
  }

  /** Shows the scroll indicators briefly. */
  flashScrollIndicators() {
    this.indicators.poke(performance.now() + 500);
    this.invalidate?.();
  }

  /** Not UIKit: sets zoom and offset at once, clamped to where the view may rest (deep links). */
  setView(view) {
    this.controller?.setView(view);
  }

  /**
   * Not UIKit (CATiledLayer's contents changing under a still layer): moves to another version of the image shown —
   * the descriptor at `src`, e.g. the final pyramid of an image first shown from a provisional one while it was
   * being sliced. When its geometry (size, tile size, overlap) is the one shown, the view (`contentOffset`,
   * `zoomScale`), a gesture or animation under way and every tile on screen are kept; each tile is drawn until the
   * new version's tile for its place replaces it, so nothing jumps or blinks. No `load`, no delegate call, no
   * `didscroll`/`didzoom`; the `src` attribute becomes `src` without reopening. With another geometry it opens
   * `src` as setting `src` does (the view starts fitted; `load` fires). Before an image is open, it sets `src`.
   * @param {string} src
   * @returns {Promise<boolean>} Whether the view was kept; rejects (an HttpError, the image shown as it was) when
   *   the descriptor cannot be loaded.
   */
  async replaceSource(src) {
    if (!this.source || this.loading) {
      this.src = src;
      return false;
    }
    const generation = ++this.generation;
    const source = await loadTileSource(src, undefined, this.access.fetch);
    if (generation !== this.generation || !this.source) return false;
    this.setSrcQuietly(src);
    if (!sameGeometry(source.pyramid, this.source.pyramid)) {
      this.open(src);
      return false;
    }
    adoptSource(this, source);
    return true;
  }

  /** Sets the `src` attribute without opening it. */
  setSrcQuietly(src) {
    this.quietSrc = src;
    try {
      this.setAttribute('src', src);
    } finally {
      this.quietSrc = null;
    }
  }
}
