// The scale bar of `<tiler-viewer>`: a bar of a round length (1, 2 or 5 × 10ⁿ micrometres, shown in µm, mm or m) as
// long as it can be without passing `maxPoints`, for the image's microns per pixel and the current zoom, with its
// length written beside it; drawn in the box's bottom-left corner inside `contentInset`.

/** The longest the bar gets, in points (CSS pixels): it is between 40 % and 100 % of this. */
export const SCALE_BAR_MAX_POINTS = 120;

/** Unit names, in words, for screen readers. */
const WORDS = { 'µm': ['micrometre', 'micrometres'], mm: ['millimetre', 'millimetres'], m: ['metre', 'metres'] };

/**
 * The bar for an image of `micronsPerPixel` (µm per image pixel) shown at `zoomScale` (points per image pixel):
 * `{points, microns, label, words}`, or `null` when either is not a positive finite number.
 * @returns {{points: number, microns: number, label: string, words: string} | null}
 */
export function scaleBarLength(micronsPerPixel, zoomScale, maxPoints = SCALE_BAR_MAX_POINTS) {
  if (!(micronsPerPixel > 0 && zoomScale > 0 && Number.isFinite(micronsPerPixel) && Number.isFinite(zoomScale))) return null;
  const pointsPerMicron = zoomScale / micronsPerPixel;
  const most = maxPoints / pointsPerMicron;
  let power = 10 ** Math.floor(Math.log10(most));
  // Floating point: 10 ** floor(log10(1000)) may come out a hair under or over.
  if (power * 10 <= most * (1 + 1e-12)) power *= 10;
  const microns = [5, 2, 1].map((m) => m * power).find((length) => length <= most * (1 + 1e-12)) ?? power;
  const [value, unit] = microns >= 1e6 ? [microns / 1e6, 'm'] : microns >= 1e3 ? [microns / 1e3, 'mm'] : [microns, 'µm'];
  const number = Number(value.toPrecision(6)).toLocaleString('en', { maximumFractionDigits: 6 });
  const [one, many] = WORDS[unit];
  return { points: microns * pointsPerMicron, microns, label: `${number} ${unit}`, words: `${number} ${value === 1 ? one : many}` };
}

/**
 * The bar's element in the viewer's shadow root, hidden until it has a physical size to show.
 */
export class ScaleBar {
  /** @param {ShadowRoot} root */
  constructor(root) {
    this.element = document.createElement('div');
    this.element.className = 'scale-bar';
    this.element.setAttribute('part', 'scale-bar');
    this.element.setAttribute('role', 'img');
    this.element.hidden = true;
    this.bar = document.createElement('div');
    this.bar.className = 'scale-bar-line';
    this.text = document.createElement('span');
    this.text.className = 'scale-bar-label';
    this.element.append(this.bar, this.text);
    root.append(this.element);
    const style = document.createElement('style');
    style.textContent = `
      .scale-bar { position: absolute; z-index: 2; pointer-events: none; padding: 3px 6px 4px; border-radius: 4px;
        background: rgba(0, 0, 0, 0.55); color: #fff; font: 12px/1.2 system-ui, sans-serif; white-space: nowrap; }
      .scale-bar[hidden] { display: none; }
      .scale-bar-line { height: 4px; border: 2px solid #fff; border-top: none; box-sizing: border-box; margin-bottom: 2px; }`;
    root.append(style);
    this.shown = null;
  }

  /**
   * Shows the bar for `micronsPerPixel` at `zoomScale` within `inset` (points), or hides it when `enabled` is false or
   * there is no physical size.
   */
  update({ enabled, micronsPerPixel, zoomScale, inset }) {
    const length = enabled ? scaleBarLength(micronsPerPixel, zoomScale) : null;
    const key = length ? `${length.label}|${length.points.toFixed(1)}|${inset.left}|${inset.bottom}` : null;
    if (key === this.shown) return;
    this.shown = key;
    this.element.hidden = !length;
    if (!length) return;
    this.bar.style.width = `${length.points}px`;
    this.text.textContent = length.label;
    this.element.setAttribute('aria-label', `scale: ${length.words}`);
    this.element.style.left = `${inset.left + 12}px`;
    this.element.style.bottom = `${inset.bottom + 12}px`;
  }
}
