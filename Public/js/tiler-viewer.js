// `<tiler-viewer>`: a deep-zoom image as a UIScrollView for the web. Importing this module registers the element.
// It opens a Deep Zoom pyramid (`src="….dzi"`, any static host) or an IIIF Image service (`src="…/info.json"`),
// fills whatever box CSS gives it, and offers UIScrollView's properties, methods and delegate sequence (as a
// `delegate` object and as DOM events). Served by `tiler serve`, it reports its viewport to the server.

import { ScrollView } from './scroll-view.js';
import { ScrollController } from './scroll-controller.js';
import { NORMAL_DECELERATION_RATE, FAST_DECELERATION_RATE } from './zoom-math.js';
import { TileCache, DEFAULT_CACHE_CAPACITY } from './tile-cache.js';
import { TileLoader } from './tile-loader.js';
import { inFlightLimit, tileProtocol } from './in-flight.js';
import { TileLayer, tileKey } from './tile-layer.js';
import { GestureInput } from './gestures.js';
import { attachKeyboard } from './keyboard.js';
import { Navigator } from './navigator.js';
import { ScrollIndicators } from './scroll-indicators.js';
import { ViewportReporter, orderedLike, viewKey } from './viewport-reporter.js';
import { ViewTrend, forecastReports } from './view-forecast.js';
import { loadTileSource } from './tile-source.js';
import { arrivalTime, isCurrent } from './source-swap.js';
import { ViewerMethods } from './tiler-viewer-methods.js';
import { STYLE } from './tiler-viewer-style.js';
import { ScaleBar } from './scale-bar.js';
import { SCALE_ATTRIBUTES, installScaleProperties, scaleAttributeChanged, updateScaleBar } from './tiler-viewer-scale.js';
import { ORIENTATION_ATTRIBUTES, applyOrientation, installOrientation, orientationAttributeChanged } from './tiler-viewer-orientation.js';
import { isUpright, storedView } from './orientation.js';
import { A11Y_ATTRIBUTES, A11Y_STYLE, ViewerA11y } from './tiler-viewer-a11y.js';
import { CONTROLS_ATTRIBUTE, CONTROLS_STYLE, ViewerControls } from './viewer-controls.js';

/** UIKit's delegate method for each event name. */
const DELEGATE = {
  didScroll: 'scrollViewDidScroll', willBeginDragging: 'scrollViewWillBeginDragging', willEndDragging: 'scrollViewWillEndDragging',
  didEndDragging: 'scrollViewDidEndDragging', willBeginDecelerating: 'scrollViewWillBeginDecelerating',
  didEndDecelerating: 'scrollViewDidEndDecelerating', didEndScrollingAnimation: 'scrollViewDidEndScrollingAnimation',
  willBeginZooming: 'scrollViewWillBeginZooming', didZoom: 'scrollViewDidZoom', didEndZooming: 'scrollViewDidEndZooming',
  shouldScrollToTop: 'scrollViewShouldScrollToTop', didScrollToTop: 'scrollViewDidScrollToTop',
};

/**
 * The element. Properties and methods follow UIScrollView (see docs/element.md); points are CSS pixels.
 */
export class TilerViewer extends ViewerMethods {
  static get observedAttributes() {
    return [...ViewerMethods.observedAttributes, ...SCALE_ATTRIBUTES, ...ORIENTATION_ATTRIBUTES, ...A11Y_ATTRIBUTES, CONTROLS_ATTRIBUTE];
  }

  attributeChangedCallback(name, old, value) {
    if (SCALE_ATTRIBUTES.includes(name)) scaleAttributeChanged(this, name, value);
    else if (ORIENTATION_ATTRIBUTES.includes(name)) orientationAttributeChanged(this, name, value);
    else if (A11Y_ATTRIBUTES.includes(name)) this.a11y.attributeChanged(name, value);
    else if (name === CONTROLS_ATTRIBUTE) this.controls.show(value !== null);
    else super.attributeChangedCallback(name, old, value);
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${STYLE}${A11Y_STYLE}${CONTROLS_STYLE}</style><style class="touch-action"></style><div class="stage" part="stage"><canvas></canvas></div>`;
    /** Rules that depend on `panMinimumTouches`. */
    this.touchActionStyle = root.querySelector('style.touch-action');
    this.stage = root.querySelector('.stage');
    this.canvas = root.querySelector('canvas');
    this.indicators = new ScrollIndicators(root);
    this.scaleBar = new ScaleBar(root);
    this.a11y = new ViewerA11y(this);
    this.controls = new ViewerControls(this);
    /** The UIScrollView delegate: an object with any of UIKit's `scrollView…` methods. */
    this.delegate = null;
    this.source = null;
    this.scrollView = null;
    this.frameRequested = false;
    this.generation = 0;
  }

  connectedCallback() {
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    this.a11y.connected();
    if (!this.onFullscreen) {
      this.onFullscreen = () => {
        this.controls.update();
        this.resize();
      };
      document.addEventListener('fullscreenchange', this.onFullscreen);
    }
    this.resizeObserver ??= new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(this);
    if (!this.source && this.src && !this.loading) this.open(this.src);
  }

  disconnectedCallback() {
    this.resizeObserver?.disconnect();
    document.removeEventListener('fullscreenchange', this.onFullscreen);
    this.onFullscreen = null;
  }

  /** Opens `src` (a `.dzi` or an IIIF `info.json`); fires `load` (detail: width, height) or `error` (detail: message). */
  async open(src) {
    const generation = ++this.generation;
    this.close();
    this.loading = true;
    let source;
    try {
      source = await loadTileSource(src, undefined, this.access.fetch);
    } catch (error) {
      if (generation !== this.generation) return;
      this.loading = false;
      this.lastError = error.message;
      this.dispatchEvent(new CustomEvent('error', { detail: { message: error.message, status: error.status ?? null } }));
      return;
    }
    if (generation !== this.generation) return;
    this.loading = false;
    this.start(source);
  }

  /** Builds the scroll view, tile machinery and input handlers for `source`. */
  start(source) {
    this.source = source;
    const p = source.pyramid;
    this.scrollView = new ScrollView({
      contentSize: { width: p.width, height: p.height }, viewportSize: this.measure(), devicePixelRatio: window.devicePixelRatio || 1,
    });
    this.controller = new ScrollController(this.scrollView, { onChange: () => this.changed(), emit: (name, detail) => this.emit(name, detail) });
    this.cache = new TileCache(this.settings.cacheCapacity ?? DEFAULT_CACHE_CAPACITY, (entry) => entry.bitmap.close());
    this.loader = new TileLoader({
      maxInFlight: this.inFlightLimit(),
      onLoad: (key, bitmap) => {
        // The descriptor's timing entry may not have been there yet: the first tile's says, if nothing did.
        if (!this.protocolChecked) {
          this.protocolChecked = true;
          this.loader.maxInFlight = this.inFlightLimit();
        }
        this.cache.set(key, { bitmap, loadedAt: arrivalTime(this.cache.peek(key), performance.now()) });
        this.invalidate();
      },
      onError: (key, error) => {
        this.access.tileFailed(error);
        this.invalidate();
      },
      onWake: () => this.invalidate(),
    });
    this.layer = new TileLayer(this.canvas, { pyramid: p, tileURL: source.tileURL }, { cache: this.cache, prefetch: this.settings.prefetch ?? 1 });
    const endpoint = this.getAttribute('visible-endpoint') || source.visibleEndpoint;
    this.reporter = endpoint ? new ViewportReporter(endpoint, { fetch: this.access.fetch, onChange: () => this.invalidate() }) : null;
    this.trend = new ViewTrend();
    this.reportedAnimation = null;
    if (this.hasAttribute('navigator')) {
      this.navigator = new Navigator(this.shadowRoot, p, (point) => this.controller.centreOn(this.shownPoint(point)), (dx, dy) => this.step(dx, dy));
    }
    this.gestures = new GestureInput(this.stage, this.controller, this);
    this.detachKeyboard = attachKeyboard(this, this.controller, () => this.isConnected, { scrollToTop: () => this.scrollToTop(), extra: this.extraKeys() });
    applyOrientation(this);
    this.a11y.reset();
    this.applySettings();
    this.settled = false;
    this.watchPixelRatio();
    this.resize();
    this.dispatchEvent(new CustomEvent('load', { detail: { width: p.width, height: p.height } }));
  }

  /**
   * The tile requests kept in flight: `settings.maxInFlight` when set, else by the protocol that reached the tile
   * server (in-flight.js), which it remembers in `protocol` ('' while unknown).
   */
  inFlightLimit() {
    if (typeof this.settings.maxInFlight !== 'number' && !this.protocol) {
      const origin = new URL(this.source.tileURL(0, 0, 0), location.href).origin;
      this.protocol = tileProtocol(origin, location.origin, performance.getEntriesByType('navigation')[0],
        performance.getEntriesByType('resource'));
    }
    return inFlightLimit(this.settings.maxInFlight, this.protocol);
  }

  /** Whether the on-screen controls show (the boolean attribute `controls`; off by default). */
  get showsControls() {
    return this.hasAttribute(CONTROLS_ATTRIBUTE);
  }

  set showsControls(value) {
    this.toggleAttribute(CONTROLS_ATTRIBUTE, Boolean(value));
  }

  /** The element's keys beyond UIScrollView's: rotate, flip, full screen, the help. */
  extraKeys() {
    return {
      r: () => this.rotate(90),
      R: () => this.rotate(-90),
      m: () => this.flip(),
      M: () => this.flip(),
      f: () => this.toggleFullscreen(),
      F: () => this.toggleFullscreen(),
      '?': () => this.a11y.toggleHelp(),
      Escape: () => this.a11y.toggleHelp(false),
    };
  }

  /** Zooms by `factor` around the centre of the area inside the insets, animated (the controls, the app's buttons). */
  zoomAroundCentre(factor) {
    this.controller?.zoomBy(factor, this.scrollView.centre, performance.now());
  }

  /** Moves the view a quarter of the viewport each way `dx`, `dy` (−1, 0, 1) say (the navigator's arrow keys). */
  step(dx, dy) {
    const sv = this.scrollView;
    if (!sv) return;
    this.controller.panBy(Math.round(dx * sv.viewportSize.width / 4), Math.round(dy * sv.viewportSize.height / 4), performance.now());
  }

  /** Stops loading, forgets the image and its tiles. */
  close() {
    this.loader?.reset();
    this.gestures?.detach();
    this.detachKeyboard?.();
    this.reporter?.cancel();
    this.unwatchPixelRatio?.();
    this.navigator?.remove();
    this.cache?.clear();
    clearTimeout(this.settleTimer);
    this.source = this.scrollView = this.controller = this.navigator = this.reporter = null;
    this.protocol = '';
    this.protocolChecked = false;
    this.lastError = null;
  }

  /** The box size in points. */
  measure() {
    return { width: Math.max(1, this.clientWidth), height: Math.max(1, this.clientHeight) };
  }

  /** Adapts the canvas and the scroll view to the box and the screen's pixel ratio. */
  resize() {
    const sv = this.scrollView;
    if (!sv) return;
    const size = this.measure();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(size.width * dpr);
    this.canvas.height = Math.round(size.height * dpr);
    this.canvas.style.width = `${size.width}px`;
    this.canvas.style.height = `${size.height}px`;
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

  /** Sends one delegate moment to the delegate and as a DOM event (lower-case name). */
  emit(name, detail = {}) {
    const method = this.delegate?.[DELEGATE[name]];
    if (typeof method === 'function') {
      try {
        if (name === 'willEndDragging') method.call(this.delegate, this, detail.velocity, detail.targetContentOffset);
        else if (name === 'didEndDragging') method.call(this.delegate, this, detail.willDecelerate);
        else if (name === 'didEndZooming') method.call(this.delegate, this, detail.atScale);
        else method.call(this.delegate, this);
      } catch (error) {
        console.error(error); // A broken delegate must not stop the scroll view.
      }
    }
    this.dispatchEvent(new CustomEvent(name.toLowerCase(), { detail }));
  }

  /**
   * Asks the delegate's `scrollView…` method of UIKit's name (true unless it returns false, as UIKit assumes for a
   * method it does not implement) and dispatches a cancelable event (lower-case name): `preventDefault()` says no.
   */
  ask(name) {
    const method = this.delegate?.[DELEGATE[name]];
    let allowed = true;
    if (typeof method === 'function') {
      try {
        allowed = method.call(this.delegate, this) !== false;
      } catch (error) {
        console.error(error);
      }
    }
    const event = new CustomEvent(name.toLowerCase(), { cancelable: true });
    return this.dispatchEvent(event) && allowed;
  }

  /** The view changed (or an animation advanced): redraw, show the indicators. */
  changed() {
    this.indicators.poke(performance.now());
    this.settled = false;
    this.invalidate();
  }

  /** Asks for a frame (at most one pending). */
  invalidate() {
    if (this.frameRequested || !this.isConnected || !this.scrollView) return;
    this.frameRequested = true;
    requestAnimationFrame((now) => this.frame(now));
  }

  /** Draws one frame at `now` ms and decides whether another is needed. */
  frame(now) {
    this.frameRequested = false;
    if (!this.isConnected || !this.scrollView) return;
    const sv = this.scrollView;
    const animating = this.controller.step(now);
    // Tiles, navigator and reports work on the image as stored (the same view, turned back when the image is turned).
    const stored = this.storedView();
    const viewport = this.layer.viewport(stored);
    const key = viewKey(viewport);
    this.reportView(viewport, now);
    const fading = this.layer.render(stored, now, (k) => this.loader.failed.has(k));
    const local = this.layer.requests((k) => this.loader.isMissing(k));
    const order = this.reporter?.orderFor(key);
    const ordered = order ? orderedLike(local, order) : local;
    this.loader.want(this.reporter ? this.reporter.ready(ordered, performance.now()) : ordered, (k) => isCurrent(this.cache.peek(k)));
    if (this.navigator) {
      this.navigator.drawOverview(this.cache.peek(this.layer.overviewKey)?.bitmap, sv.devicePixelRatio);
      this.navigator.update(stored.viewportImageRect ?? sv.viewportImageRect);
    }
    this.indicators.hold(this.controller.tracking, performance.now());
    const showing = this.indicators.update(sv, performance.now());
    updateScaleBar(this);
    this.updateStatus();
    this.a11y.zoomed(sv.zoomScale, this.controller.isIdle);
    if (animating || fading || showing) this.invalidate();
    if (this.controller.isIdle) this.settled = true;
  }

  /** Tells the server where the view is going (see view-forecast.js and viewport-reporter.js). */
  reportView(viewport, now) {
    if (!this.reporter) return;
    const t = performance.now();
    const waiting = this.reporter.waiting.size > 0;
    // The forecast works on the view as shown; the server is told the image as stored (the same when upright).
    const upright = isUpright(this.orientation);
    const shown = upright ? viewport : this.layer.viewport(this.scrollView);
    const forecast = forecastReports(this.controller, this.trend, shown, now, this.reportedAnimation, waiting);
    const stored = (v) => (upright ? v : this.storedViewport(v));
    this.reportedAnimation = this.controller.animation;
    if (forecast.target) this.reporter.predict(stored(forecast.target), t);
    this.reporter.report(stored(forecast.viewport), forecast.settled, t);
  }

  /** A viewport of the view as shown (points) as the same viewport of the image as stored. */
  storedViewport(v) {
    const s = storedView({ ...v, viewportSize: { width: v.width, height: v.height } }, this.orientation, this.source.pyramid);
    return { ...v, x: s.x, y: s.y, width: s.viewportSize.width, height: s.viewportSize.height };
  }

  /** Fires `tilestatus` when loading starts or stops or the error message changes. */
  updateStatus() {
    const status = { loading: this.layer.stats.missing > 0, error: this.errorMessage() };
    if (status.loading === this.lastStatus?.loading && status.error === this.lastStatus?.error) return;
    this.lastStatus = status;
    this.a11y.loading(status.loading, status.error);
    this.dispatchEvent(new CustomEvent('tilestatus', { detail: status }));
  }

  /** One line about failed tiles, or `null`. */
  errorMessage() {
    const failures = this.loader.failed;
    if (failures.size === 0) return null;
    // No answer at all: say so in those words; the loader asks again by itself, waiting longer each time.
    if (this.loader.unreachable) return 'The server cannot be reached. Trying again by itself…';
    const [key, error] = failures.entries().next().value;
    if (key === this.layer.overviewKey) return `The image could not be loaded (${error.message}).`;
    const count = failures.size === 1 ? 'A tile' : `${failures.size} tiles`;
    return `${count} could not be loaded (${error.message}).`;
  }

  /** Requests the failed tiles again. */
  retry() {
    this.loader?.retry();
    this.invalidate();
  }

  /** A snapshot of the state for tests and debugging. */
  get debug() {
    const sv = this.scrollView;
    if (!sv) return null;
    const stats = this.layer.stats;
    return {
      image: this.source.name,
      view: { ...sv.view, ...sv.viewportSize, devicePixelRatio: sv.devicePixelRatio, minimumZoomScale: sv.minimumZoomScale, maximumZoomScale: sv.maximumZoomScale },
      level: stats.level,
      stats: { ...stats },
      shown: (this.layer.shown?.tiles ?? []).map((t) => tileKey(t.level, t.col, t.row)),
      wanted: this.layer.requests((k) => this.loader.isMissing(k)).map((r) => r.url),
      cache: this.cache.stats,
      loader: { ...this.loader.counts, maxInFlight: this.loader.maxInFlight, protocol: this.protocol, inFlight: this.loader.inFlight.size, queued: this.loader.queue.length, failed: this.loader.failed.size, missing: this.loader.notYet.size },
      gestureIdle: this.controller.isIdle,
      complete: this.controller.isIdle && !this.frameRequested && stats.missing === 0 && stats.fading === 0 && stats.stale === 0,
      loaded: this.loader.isIdle,
      settled: this.settled && this.controller.isIdle,
      lastFlick: this.controller.lastFlick,
      levelBias: this.layer.levelBias,
      reports: this.reporter?.sent ?? 0,
      predictedReports: this.reporter?.predicted ?? 0,
    };
  }
}

installScaleProperties(TilerViewer);
installOrientation(TilerViewer);

export { NORMAL_DECELERATION_RATE, FAST_DECELERATION_RATE };

if (!customElements.get('tiler-viewer')) customElements.define('tiler-viewer', TilerViewer);
