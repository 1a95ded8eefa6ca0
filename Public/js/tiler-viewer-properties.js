// `<tiler-viewer>`'s UIScrollView properties (mirrored by attributes where a page author wants them in HTML), over
// the element's ScrollView, ScrollController, indicators, gestures and tile layer; the methods are in
// tiler-viewer-methods.js. Settings made before the image has loaded are kept and applied once it has.

import { NORMAL_DECELERATION_RATE, FAST_DECELERATION_RATE } from './zoom-math.js';
import { INDICATOR_STYLES } from './scroll-indicators.js';
import { PAGE_PANS_STYLE } from './tiler-viewer-style.js';
import { ViewerAccess } from './viewer-access.js';

/** Boolean properties: property name → [attribute, default, where it goes]. */
const FLAGS = {
  bounces: ['bounces', true],
  alwaysBounceHorizontal: ['always-bounce-horizontal', false],
  alwaysBounceVertical: ['always-bounce-vertical', false],
  bouncesZoom: ['bounces-zoom', true],
  isScrollEnabled: ['scroll-enabled', true],
  isDirectionalLockEnabled: ['directional-lock', false],
  isPagingEnabled: ['paging-enabled', false],
  scrollsToTop: ['scrolls-to-top', true],
  showsHorizontalScrollIndicator: ['shows-horizontal-scroll-indicator', true],
  showsVerticalScrollIndicator: ['shows-vertical-scroll-indicator', true],
};

const NO_INSETS = Object.freeze({ top: 0, left: 0, bottom: 0, right: 0 });

/** Reads `"10"`, `"10 20"` or `"10 20 30 40"` (CSS order: top right bottom left) as insets. */
export function parseInsets(text) {
  const n = String(text ?? '').trim().split(/[\s,]+/).filter(Boolean).map(Number);
  if (n.length === 0 || n.some((v) => !Number.isFinite(v))) return { ...NO_INSETS };
  const [top, right = top, bottom = top, left = right] = n;
  return { top, left, bottom, right };
}

/** The controller's flags, pushed into it as they are. */
const CONTROLLER_FLAGS = ['bounces', 'alwaysBounceHorizontal', 'alwaysBounceVertical', 'bouncesZoom', 'isScrollEnabled', 'isDirectionalLockEnabled', 'isPagingEnabled'];
/** The furthest `levelOfDetailBias` goes either way (a pyramid has at most 33 levels). */
const MAX_LEVEL_BIAS = 32;

/** `'normal'`, `'fast'` or a number in (0, 1) as a per-millisecond rate. */
export function parseRate(value) {
  if (value === 'normal' || value === undefined || value === null) return NORMAL_DECELERATION_RATE;
  if (value === 'fast') return FAST_DECELERATION_RATE;
  const rate = Number(value);
  if (!(rate > 0 && rate < 1)) throw new RangeError(`decelerationRate must be 'normal', 'fast' or a number in (0, 1) (got ${value})`);
  return rate;
}

/**
 * The element's base class: UIScrollView's properties and methods.
 */
export class ViewerProperties extends HTMLElement {
  static get observedAttributes() {
    return ['src', 'token', 'min-zoom', 'max-zoom', 'deceleration-rate', 'content-inset', 'scroll-indicator-insets', 'indicator-style',
      'pan-minimum-touches', 'level-of-detail-bias', ...Object.values(FLAGS).map((f) => f[0])];
  }

  constructor() {
    super();
    /** Everything settable, applied to the scroll view once it exists. */
    this.settings = {
      rate: NORMAL_DECELERATION_RATE, contentInset: { ...NO_INSETS }, scrollIndicatorInsets: { ...NO_INSETS }, minimumZoomScale: null,
      maximumZoomScale: null, indicatorStyle: 'default', panMinimumTouches: 1, levelOfDetailBias: 0,
    };
    for (const [name, [, value]] of Object.entries(FLAGS)) this.settings[name] = value;
    /** The token and what follows from it (see viewer-access.js). */
    this.access = new ViewerAccess(this);
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'src') {
      if (this.isConnected && value && value !== this.quietSrc) this.open(value);
      return;
    }
    if (name === 'token') {
      this.token = value ?? '';
      return;
    }
    if (name === 'min-zoom') this.minimumZoomScale = value === null ? null : Number(value);
    else if (name === 'max-zoom') this.maximumZoomScale = value === null ? null : Number(value);
    else if (name === 'deceleration-rate') this.decelerationRate = value ?? 'normal';
    else if (name === 'content-inset') this.contentInset = parseInsets(value);
    else if (name === 'scroll-indicator-insets') this.scrollIndicatorInsets = parseInsets(value);
    else if (name === 'indicator-style') this.indicatorStyle = value ?? 'default';
    else if (name === 'pan-minimum-touches') this.panMinimumTouches = value ?? 1;
    else if (name === 'level-of-detail-bias') this.levelOfDetailBias = value ?? 0;
    else {
      const [property, [, fallback]] = Object.entries(FLAGS).find(([, f]) => f[0] === name);
      this[property] = value === null ? fallback : value !== 'false';
    }
  }

  /** The descriptor URL (`….dzi` or `…/info.json`). */
  get src() {
    return this.getAttribute('src') ?? '';
  }

  set src(value) {
    this.setAttribute('src', value);
  }

  /**
   * The access token for private images, sent as `Authorization: Bearer` on the descriptor and visible-rect fetches
   * (the `token` attribute sets it too; the property does not write the attribute). When the server refuses it the
   * element fires `tokenexpired`; setting a fresh one gives the open image fresh signed tile URLs, keeping the view.
   */
  get token() {
    return this.access.token;
  }

  set token(value) {
    this.access.setToken(value);
  }

  /** Pushes the settings into the scroll view, controller and indicators, keeping the view within new limits. */
  applySettings() {
    const sv = this.scrollView;
    if (!sv) return;
    const s = this.settings;
    const c = this.controller;
    for (const name of CONTROLLER_FLAGS) c[name] = s[name];
    c.rate = s.rate;
    if (this.gestures) this.gestures.minimumTouches = s.panMinimumTouches;
    if (this.layer) this.layer.levelBias = s.levelOfDetailBias;
    if (s.maxDevicePixels) sv.maxDevicePixels = s.maxDevicePixels;
    this.indicators.showsHorizontal = s.showsHorizontalScrollIndicator;
    this.indicators.showsVertical = s.showsVerticalScrollIndicator;
    this.indicators.insets = { ...s.scrollIndicatorInsets };
    this.indicators.style = s.indicatorStyle;
    const limits = [sv.minimumOverride, sv.maximumOverride, sv.contentInset];
    sv.minimumOverride = s.minimumZoomScale;
    sv.maximumOverride = s.maximumZoomScale;
    const i = s.contentInset;
    const insetChanged = ['top', 'left', 'bottom', 'right'].some((k) => i[k] !== limits[2][k]);
    if (insetChanged) sv.setContentInset(i);
    if (insetChanged || limits[0] !== s.minimumZoomScale || limits[1] !== s.maximumZoomScale) {
      if (!sv.isResting()) c.setView(sv.restingView());
    }
    this.invalidate?.();
  }

  set(name, value) {
    this.settings[name] = value;
    this.applySettings();
  }

  // UIScrollView's properties.

  /** The top-left of the visible part of the zoomed content, in points; setting it does not animate or clamp. */
  get contentOffset() {
    return this.scrollView ? { x: this.scrollView.x, y: this.scrollView.y } : { x: 0, y: 0 };
  }

  set contentOffset(p) {
    this.setContentOffset(p, false);
  }

  /** The image size × `zoomScale`, in points (read-only). */
  get contentSize() {
    return this.scrollView ? this.scrollView.scaledContentSize : { width: 0, height: 0 };
  }

  /** Points around the scrollable area (chrome covering the box): `{top, left, bottom, right}`. */
  get contentInset() {
    return { ...this.settings.contentInset };
  }

  set contentInset(inset) {
    this.set('contentInset', { ...NO_INSETS, ...inset });
  }

  /** Insets of the scroll indicators from the box's edges. */
  get scrollIndicatorInsets() {
    return { ...this.settings.scrollIndicatorInsets };
  }

  set scrollIndicatorInsets(inset) {
    this.set('scrollIndicatorInsets', { ...NO_INSETS, ...inset });
  }

  /** Points per image pixel. Setting it zooms around the centre of the area inside the insets, without animation. */
  get zoomScale() {
    return this.scrollView?.zoomScale ?? 1;
  }

  set zoomScale(scale) {
    this.setZoomScale(scale, false);
  }

  /** Default: aspect fit inside the insets, never above 1. `null` restores the default. */
  get minimumZoomScale() {
    return this.scrollView?.minimumZoomScale ?? this.settings.minimumZoomScale ?? 0;
  }

  set minimumZoomScale(value) {
    this.set('minimumZoomScale', value === null || value === undefined ? null : positive(value, 'minimumZoomScale'));
  }

  /** Default: 2 device pixels per image pixel; never below the minimum. `null` restores the default. */
  get maximumZoomScale() {
    return this.scrollView?.maximumZoomScale ?? this.settings.maximumZoomScale ?? 0;
  }

  set maximumZoomScale(value) {
    this.set('maximumZoomScale', value === null || value === undefined ? null : positive(value, 'maximumZoomScale'));
  }

  /** The per-millisecond velocity factor of a flick: 0.998 (`'normal'`), 0.99 (`'fast'`) or the number set. */
  get decelerationRate() {
    return this.settings.rate;
  }

  set decelerationRate(value) {
    this.set('rate', parseRate(value));
  }

  get isTracking() {
    return this.controller?.tracking ?? false;
  }

  get isDragging() {
    return this.controller?.dragging ?? false;
  }

  get isDecelerating() {
    return this.controller?.decelerating ?? false;
  }

  get isZooming() {
    return this.controller?.zooming ?? false;
  }

  get isZoomBouncing() {
    return this.controller?.zoomBouncing ?? false;
  }

  /** UIKit's `indicatorStyle`: `'default'` (dark, light border), `'black'` or `'white'` (both narrower, no border). */
  get indicatorStyle() {
    return this.settings.indicatorStyle;
  }

  set indicatorStyle(value) {
    if (!INDICATOR_STYLES.includes(value)) throw new RangeError(`indicatorStyle must be one of ${INDICATOR_STYLES.join(', ')} (got ${value})`);
    this.set('indicatorStyle', value);
  }

  /**
   * UIKit's `panGestureRecognizer.minimumNumberOfTouches` for fingers and pens: 1 (the default), or 2 — then one
   * finger scrolls the page past the element (its `touch-action` becomes `pan-x pan-y`) and two pan and pinch it.
   */
  get panMinimumTouches() {
    return this.settings.panMinimumTouches;
  }

  set panMinimumTouches(value) {
    const n = Number(value);
    if (n !== 1 && n !== 2) throw new RangeError(`panMinimumTouches must be 1 or 2 (got ${value})`);
    this.touchActionStyle.textContent = n === 2 ? PAGE_PANS_STYLE : '';
    this.set('panMinimumTouches', n);
  }

  /**
   * CATiledLayer's `levelsOfDetailBias`, as a signed integer: the tiles drawn are this many levels finer (positive)
   * or coarser (negative) than the screen needs (default 0).
   */
  get levelOfDetailBias() {
    return this.settings.levelOfDetailBias;
  }

  set levelOfDetailBias(value) {
    const n = Number(value);
    if (!(Number.isInteger(n) && Math.abs(n) <= MAX_LEVEL_BIAS)) throw new RangeError(`levelOfDetailBias must be an integer from -${MAX_LEVEL_BIAS} to ${MAX_LEVEL_BIAS} (got ${value})`);
    this.set('levelOfDetailBias', n);
  }

  /** UIKit's Objective-C name of {@link ViewerProperties#isPagingEnabled}. */
  get pagingEnabled() {
    return this.isPagingEnabled;
  }

  set pagingEnabled(value) {
    this.isPagingEnabled = value;
  }
}

// The boolean properties (`bounces`, `alwaysBounceVertical`, …), each a setting pushed into the scroll view.
for (const name of Object.keys(FLAGS)) {
  Object.defineProperty(ViewerProperties.prototype, name, {
    get() {
      return this.settings[name];
    },
    set(value) {
      this.set(name, Boolean(value));
    },
  });
}

/** `value` as a finite number > 0, else a RangeError naming `name`. */
export function positive(value, name) {
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0)) throw new RangeError(`${name} must be a finite number > 0 (got ${value})`);
  return n;
}
