// One open image: puts the scroll view, its controller, the tile layer, cache and loader, the navigator, the
// status bar and the input handlers together, and runs the frame loop — a frame is drawn only when something
// changed (a gesture, an animation step, a tile arriving or fading in), at display rate via requestAnimationFrame.

import { ScrollView } from './scroll-view.js';
import { ScrollController } from './scroll-controller.js';
import { TileCache } from './tile-cache.js';
import { TileLoader } from './tile-loader.js';
import { TileLayer, tileKey } from './tile-layer.js';
import { GestureInput } from './gestures.js';
import { attachKeyboard } from './keyboard.js';
import { Navigator } from './navigator.js';
import { StatusBar } from './status-bar.js';

/** How long the view must rest before it is reported (and written to the URL), in ms. */
const SETTLE_MS = 200;

/**
 * The viewer of one image inside `parent`.
 */
export class Viewer {
  /**
   * @param {HTMLElement} parent
   * @param {import('./api.js').ImageInfo} image
   * @param {import('./options.js').Options} options
   * @param {{onSettle?: (view: {zoomScale: number, x: number, y: number}) => void}} [hooks] `onSettle` runs
   *   when the view comes to rest after a change.
   */
  constructor(parent, image, options, { onSettle = () => {} } = {}) {
    this.image = image;
    this.options = options;
    this.onSettle = onSettle;
    this.root = document.createElement('div');
    this.root.className = 'viewer';
    this.stage = document.createElement('div');
    this.stage.className = 'stage';
    this.stage.tabIndex = 0;
    this.stage.setAttribute('aria-label', `${image.name}: drag to pan, scroll or pinch to zoom, double-click to zoom in`);
    this.canvas = document.createElement('canvas');
    this.stage.append(this.canvas);
    this.root.append(this.stage);
    parent.append(this.root);

    const p = image.pyramid;
    this.scrollView = new ScrollView({
      contentSize: { width: p.width, height: p.height },
      viewportSize: this.measure(),
      devicePixelRatio: window.devicePixelRatio || 1,
      maxDevicePixels: options.maxScale,
    });
    this.controller = new ScrollController(this.scrollView, { onChange: () => this.invalidate() });
    this.cache = new TileCache(options.cacheCapacity, (entry) => entry.bitmap.close());
    this.loader = new TileLoader({
      maxInFlight: options.maxInFlight,
      onLoad: (key, bitmap) => {
        this.cache.set(key, { bitmap, loadedAt: performance.now() });
        this.invalidate();
      },
      onError: () => this.invalidate(),
    });
    this.layer = new TileLayer(this.canvas, image, { cache: this.cache, prefetch: options.prefetch });
    this.navigator = new Navigator(this.root, p, (point) => this.controller.centreOn(point));
    const centre = () => this.scrollView.centre;
    this.status = new StatusBar(this.root, { name: image.name, width: p.width, height: p.height }, {
      onZoomIn: () => this.controller.zoomBy(2, centre(), performance.now()),
      onZoomOut: () => this.controller.zoomBy(0.5, centre(), performance.now()),
      onFit: () => this.controller.fit(performance.now()),
      onRetry: () => this.retry(),
    });
    this.gestures = new GestureInput(this.stage, this.controller);
    this.detachKeyboard = attachKeyboard(window, this.controller, () => this.root.isConnected);
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(this.stage);
    this.watchPixelRatio();
    this.frameRequested = false;
    this.settleTimer = 0;
    this.settled = true;
    this.resize();
  }

  /** Shows `view` (clamped to the limits), or the fitted image. */
  start(view = null) {
    if (view) this.controller.setView(view);
    this.stage.focus({ preventScroll: true });
    this.invalidate();
  }

  /** The current zoom scale and offset. */
  get view() {
    return this.scrollView.view;
  }

  /** Jumps to `view` (clamped), e.g. from the URL. */
  setView(view) {
    this.controller.setView(view);
  }

  /** The viewport size in points. */
  measure() {
    return { width: Math.max(1, this.stage.clientWidth), height: Math.max(1, this.stage.clientHeight) };
  }

  /** Adapts the canvas and the scroll view to the stage's size and the screen's pixel ratio. */
  resize() {
    const size = this.measure();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(size.width * dpr);
    this.canvas.height = Math.round(size.height * dpr);
    this.canvas.style.width = `${size.width}px`;
    this.canvas.style.height = `${size.height}px`;
    const sv = this.scrollView;
    if (size.width !== sv.viewportSize.width || size.height !== sv.viewportSize.height || dpr !== sv.devicePixelRatio) {
      this.controller.stop();
      sv.resize(size, dpr);
    }
    this.invalidate();
  }

  /** Re-renders when the page moves to a screen with another pixel ratio (or the browser zoom changes). */
  watchPixelRatio() {
    const query = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    const listener = () => {
      this.resize();
      this.watchPixelRatio();
    };
    query.addEventListener('change', listener, { once: true });
    this.unwatchPixelRatio = () => query.removeEventListener('change', listener);
  }

  /** Asks for a frame (at most one pending). */
  invalidate() {
    if (this.frameRequested || !this.root.isConnected) return;
    this.frameRequested = true;
    requestAnimationFrame((now) => this.frame(now));
  }

  /** Draws one frame at time `now` (ms) and decides whether another is needed. */
  frame(now) {
    this.frameRequested = false;
    if (!this.root.isConnected) return;
    const animating = this.controller.step(now);
    const fading = this.layer.render(this.scrollView, now, (key) => this.loader.failed.has(key));
    this.loader.want(this.layer.requests(), (key) => this.cache.has(key));
    const sv = this.scrollView;
    this.navigator.drawOverview(this.cache.peek(this.layer.overviewKey)?.bitmap, sv.devicePixelRatio);
    this.navigator.update(sv.viewportImageRect);
    const stats = this.layer.stats;
    this.status.update({ zoomScale: sv.zoomScale, devicePixelRatio: sv.devicePixelRatio, loading: stats.missing > 0, error: this.errorMessage() });
    if (animating || fading) this.invalidate();
    this.scheduleSettle();
  }

  /** Reports the view once it has rested for {@link SETTLE_MS}. */
  scheduleSettle() {
    clearTimeout(this.settleTimer);
    this.settled = false;
    this.settleTimer = setTimeout(() => {
      if (!this.controller.isIdle) return this.scheduleSettle();
      this.settled = true;
      this.onSettle(this.view);
    }, SETTLE_MS);
  }

  /** One line about failed tiles, or `null`. */
  errorMessage() {
    const failures = this.loader.failed;
    if (failures.size === 0) return null;
    const [key, error] = failures.entries().next().value;
    if (key === this.layer.overviewKey) return `The image could not be loaded (${error.message}).`;
    const count = failures.size === 1 ? 'A tile' : `${failures.size} tiles`;
    return `${count} could not be loaded (${error.message}).`;
  }

  /** Requests the failed tiles again. */
  retry() {
    this.loader.retry();
    this.invalidate();
  }

  /** A snapshot of the viewer's state for tests and debugging. */
  get debug() {
    const sv = this.scrollView;
    const stats = this.layer.stats;
    return {
      image: this.image.name,
      view: {
        ...sv.view, ...sv.viewportSize, devicePixelRatio: sv.devicePixelRatio,
        minimumZoomScale: sv.minimumZoomScale, maximumZoomScale: sv.maximumZoomScale,
      },
      level: stats.level,
      stats: { ...stats },
      shown: (this.layer.shown?.tiles ?? []).map((t) => tileKey(t.level, t.col, t.row)),
      wanted: this.layer.requests().map((r) => r.url),
      cache: this.cache.stats,
      loader: { ...this.loader.counts, inFlight: this.loader.inFlight.size, queued: this.loader.queue.length, failed: this.loader.failed.size },
      gestureIdle: this.controller.isIdle,
      complete: this.controller.isIdle && !this.frameRequested && stats.missing === 0 && stats.fading === 0,
      loaded: this.loader.isIdle,
      settled: this.settled,
      lastFlick: this.controller.lastFlick,
    };
  }

  /** Stops everything and removes the viewer from the page, releasing its tiles. */
  destroy() {
    clearTimeout(this.settleTimer);
    this.loader.cancelAll();
    this.gestures.detach();
    this.detachKeyboard();
    this.resizeObserver.disconnect();
    this.unwatchPixelRatio();
    this.root.remove();
    this.cache.clear();
  }
}
