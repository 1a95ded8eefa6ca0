// Where the view is going, for the viewport reports: the server warms tiles in the background, so a report is only
// worth sending for tiles the element will ask for a little later. An animation (a flick's deceleration, an animated
// scroll or zoom) knows its path exactly; a gesture (a drag, a pinch, a wheel zoom) is extrapolated from the last
// frames' views along their velocity. Pure: views in, views out; time in milliseconds.

/** How far ahead of the current view the reports look while the content moves, in ms. */
export const LOOKAHEAD_MS = 400;
/**
 * How far ahead a zooming gesture's zoom scale is extrapolated, in ms: less, since a wheel stops without warning and
 * a zoom predicted past that point warms a level nobody sees (measured: 400 ms put a third of warm reads there).
 */
export const ZOOM_LOOKAHEAD_MS = 200;
/** The views a gesture's velocity is measured over, in ms. */
export const TREND_WINDOW_MS = 100;

/**
 * @typedef {{zoomScale: number, x: number, y: number}} View
 * @typedef {{x: number, y: number, width: number, height: number, zoomScale: number, contentScale: number}} Viewport
 */

/**
 * The recent views of a gesture, to extrapolate it: offsets linearly, the zoom scale in log space (a pinch or a wheel
 * zoom multiplies it).
 */
export class ViewTrend {
  constructor(window = TREND_WINDOW_MS) {
    this.window = window;
    /** @type {{t: number, x: number, y: number, logZoom: number}[]} */
    this.samples = [];
  }

  /** Forgets every view (the gesture ended). */
  reset() {
    this.samples = [];
  }

  /** Records `view` at time `t`. */
  add(t, view) {
    const last = this.samples[this.samples.length - 1];
    if (last && t <= last.t) this.samples.pop();
    this.samples.push({ t, x: view.x, y: view.y, logZoom: Math.log(view.zoomScale) });
    while (this.samples.length > 2 && this.samples[0].t < t - this.window) this.samples.shift();
  }

  /**
   * The view `ahead` ms after the last one (its zoom `zoomAhead` ms after) if the gesture keeps its velocity, or `null`
   * while the views recorded span less than half the window: a wheel zooms in steps, and two frames around one step
   * would look like a zoom without end (measured: predictions two levels past where the wheel stopped).
   * @returns {View | null}
   */
  extrapolate(ahead, zoomAhead = ahead) {
    const n = this.samples.length;
    if (n < 2) return null;
    const first = this.samples[0];
    const last = this.samples[n - 1];
    if (last.t - first.t < this.window / 2) return null;
    const k = ahead / (last.t - first.t);
    return {
      zoomScale: Math.exp(last.logZoom + ((last.logZoom - first.logZoom) * zoomAhead) / (last.t - first.t)),
      x: last.x + (last.x - first.x) * k,
      y: last.y + (last.y - first.y) * k,
    };
  }
}

/**
 * What to report for a view moving from `now` to `ahead` (both views of the same viewport): at the same zoom scale,
 * the rectangle covering both (its tiles are exactly those of every view in between, on the same level); at another
 * zoom scale, the view ahead alone (its level is where the tiles will be wanted).
 * @param {Viewport} now
 * @param {View} ahead
 * @returns {Viewport}
 */
export function reportedViewport(now, ahead) {
  if (Math.abs(Math.log(ahead.zoomScale / now.zoomScale)) > 1e-9) return { ...now, zoomScale: ahead.zoomScale, x: ahead.x, y: ahead.y };
  const x = Math.min(now.x, ahead.x);
  const y = Math.min(now.y, ahead.y);
  return { ...now, x, y, width: Math.max(now.x, ahead.x) + now.width - x, height: Math.max(now.y, ahead.y) + now.height - y };
}

/** `view` as a viewport of the same size and screen as `like`. @returns {Viewport} */
export function viewportOf(view, like) {
  return { ...like, zoomScale: view.zoomScale, x: view.x, y: view.y };
}

/**
 * What the element reports in a frame at time `now` ms, its view being `viewport`: `target`, an animation's end state
 * when the animation is new (not `lastAnimation`) — a flick's resting point after the delegate had its say, an
 * animated scroll or zoom's end — or `null`; and `viewport`: at rest the view (`settled`), while the content moves the
 * stretch from the view to where it will be {@link LOOKAHEAD_MS} later (the animation's own path, or the gesture's
 * velocity, recorded in `trend`) — unless tiles of the current view still wait for an answer to name them
 * (`waiting`): then the view itself, so that a level a fast zoom passes through is never skipped.
 * @param {import('./scroll-controller.js').ScrollController} controller
 * @param {ViewTrend} trend
 * @param {Viewport} viewport
 * @param {number} now
 * @param {object | null} lastAnimation The animation that ran at the last report.
 * @param {boolean} [waiting] Whether tiles of the current view wait to be named.
 * @returns {{target: Viewport | null, viewport: Viewport, settled: boolean}}
 */
export function forecastReports(controller, trend, viewport, now, lastAnimation, waiting = false) {
  const a = controller.animation;
  const target = a && a !== lastAnimation ? viewportOf(controller.targetView, viewport) : null;
  if (controller.isIdle) {
    trend.reset();
    return { target, viewport, settled: true };
  }
  const sv = controller.scrollView;
  let ahead = controller.animatedViewAt(now + LOOKAHEAD_MS);
  if (ahead) trend.reset();
  else {
    trend.add(now, sv.view);
    const guess = trend.extrapolate(LOOKAHEAD_MS, ZOOM_LOOKAHEAD_MS);
    ahead = guess && sv.restingView(guess);
  }
  return { target, viewport: ahead && !waiting ? reportedViewport(viewport, ahead) : viewport, settled: false };
}
