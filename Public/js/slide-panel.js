// A slide's side panel in the app: what a pathologist reads beside the slide — the objective and microns per pixel,
// the magnification now and presets to jump to (1×, 5×, 10×, 20×, 40×, as a microscope's turret), the label and the
// macro image, and every property the scanner recorded (`GET /api/images/NAME/properties`). The magnification is the
// objective's power at one image pixel per CSS pixel (what slide viewers show): objective × zoomScale; without an
// objective power it is worked out from the microns per pixel (10 µm / mpp: 0.25 µm per pixel is 40×).

import { fetchProperties } from './api.js';

/** The presets offered. */
export const MAGNIFICATIONS = [1, 5, 10, 20, 40];
/** A magnification within this fraction of a preset counts as that preset (its button shows pressed). */
const PRESET_TOLERANCE = 0.02;

/** The magnification at zoomScale 1 for a slide, or `null` when neither figure is known. */
export function baseMagnification(objectivePower, micronsPerPixel) {
  if (objectivePower > 0) return objectivePower;
  if (micronsPerPixel > 0) return 10 / micronsPerPixel;
  return null;
}

/** A magnification as people write it: `40×`, `12.5×`, `0.63×`. */
export function formatMagnification(m) {
  if (m >= 10) return `${Number(m.toFixed(m >= 100 ? 0 : 1))}×`;
  if (m >= 1) return `${Number(m.toFixed(2))}×`;
  return `${Number(m.toPrecision(2))}×`;
}

/**
 * Whether the image is a slide worth a panel: it has an objective, a label or a macro, or a scanner's format (every
 * format OpenSlide reads but a plain TIFF: the server lists `properties` for photographs too, so that says nothing).
 */
export function isSlide(image) {
  return Boolean(image.objectivePower || image.associated.label || image.associated.macro || (image.vendor && image.vendor !== 'tiff'));
}

/** Creates an element with a class and optional text. */
function element(tag, className, text = '') {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

/**
 * The panel of one open slide.
 */
export class SlidePanel {
  /**
   * @param {HTMLElement} parent
   * @param {import('./api.js').ImageInfo} image
   * @param {{viewer: HTMLElement & {zoomScale: number, maximumZoomScale: number, minimumZoomScale: number,
   *   setZoomScale: (z: number, animated: boolean) => void}, fetch?: typeof fetch, onToggle?: (open: boolean) => void}} options
   */
  constructor(parent, image, { viewer, fetch: fetcher, onToggle = () => {} }) {
    this.image = image;
    this.viewer = viewer;
    this.onToggle = onToggle;
    this.base = baseMagnification(image.objectivePower, image.micronsPerPixel);
    this.root = element('aside', 'slide-panel');
    this.root.id = 'slide-panel';
    this.root.setAttribute('aria-label', 'Slide');
    const head = element('div', 'slide-head');
    head.append(element('h2', '', 'Slide'));
    const close = element('button', 'icon slide-close', '×');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close the slide panel');
    close.title = 'Close the slide panel';
    close.addEventListener('click', () => this.toggle(false));
    head.append(close);
    this.root.append(head);

    const facts = element('p', 'slide-facts');
    const parts = [];
    if (image.objectivePower) parts.push(`${formatMagnification(image.objectivePower)} objective`);
    if (image.micronsPerPixel) parts.push(`${Number(image.micronsPerPixel.toPrecision(4))} µm per pixel`);
    if (image.vendor) parts.push(image.vendor);
    facts.textContent = parts.join(' · ') || 'No objective or pixel size recorded';
    this.root.append(facts);

    if (this.base) {
      const section = element('section', 'slide-magnification');
      section.setAttribute('aria-label', 'Magnification');
      const now = element('p', 'slide-mag-now');
      now.append('Magnification ');
      this.readout = element('output', 'slide-mag');
      now.append(this.readout);
      const presets = element('div', 'slide-presets');
      presets.setAttribute('role', 'group');
      presets.setAttribute('aria-label', 'Go to magnification');
      this.presets = MAGNIFICATIONS.map((m) => {
        const b = element('button', 'preset', `${m}×`);
        b.type = 'button';
        b.dataset.magnification = String(m);
        b.setAttribute('aria-label', `${m}× magnification`);
        b.addEventListener('click', () => this.viewer.setZoomScale(m / this.base, true));
        presets.append(b);
        return b;
      });
      section.append(now, presets);
      this.root.append(section);
    }

    for (const kind of ['label', 'macro']) {
      const url = image.associated[kind];
      if (!url) continue;
      const figure = element('figure', `slide-${kind}`);
      const img = element('img');
      img.src = url;
      img.alt = kind === 'label' ? `The slide's label` : `The whole slide (macro image)`;
      img.addEventListener('error', () => figure.remove(), { once: true });
      figure.append(img, element('figcaption', '', kind === 'label' ? 'Label' : 'Macro'));
      this.root.append(figure);
    }

    if (image.hasProperties) {
      const details = element('details', 'slide-properties');
      details.hidden = true; // until there are some to show
      const summary = element('summary', '', 'Properties');
      this.list = element('dl');
      details.append(summary, this.list);
      this.root.append(details);
      fetchProperties(image.name, fetcher).then(
        (properties) => {
          details.hidden = Object.keys(properties).length === 0;
          this.showProperties(properties, summary);
        },
        (error) => {
          details.hidden = false;
          this.list.replaceChildren(element('dd', '', `Could not load them: ${error.message}`));
        },
      );
    }
    parent.append(this.root);
    this.open = true;
    this.update();
  }

  /** Lists the properties, sorted by name. */
  showProperties(properties, summary) {
    const names = Object.keys(properties).sort();
    summary.textContent = `Properties (${names.length})`;
    const rows = [];
    for (const name of names) rows.push(element('dt', '', name), element('dd', '', String(properties[name])));
    this.list.replaceChildren(...rows);
  }

  /** The magnification now (`null` without a base). */
  get magnification() {
    return this.base ? this.base * this.viewer.zoomScale : null;
  }

  /** Follows the view: the read-out, the preset matching it, presets beyond the zoom limit disabled. */
  update() {
    if (!this.base) return;
    const m = this.magnification;
    const text = formatMagnification(m);
    if (this.readout.textContent !== text) this.readout.textContent = text;
    const most = this.viewer.maximumZoomScale * this.base * (1 + 1e-9);
    for (const b of this.presets) {
      const preset = Number(b.dataset.magnification);
      b.setAttribute('aria-pressed', String(Math.abs(m - preset) <= preset * PRESET_TOLERANCE));
      b.disabled = preset > most;
      b.title = b.disabled ? `${preset}× is beyond this slide's zoom limit` : `Show the slide at ${preset}×`;
    }
  }

  /** Opens or closes the panel (`open` undefined: toggles). */
  toggle(open = !this.open) {
    this.open = open;
    this.root.hidden = !open;
    this.onToggle(open);
  }

  /** Its width on screen when open, in points (0 when closed). */
  get width() {
    return this.open ? this.root.getBoundingClientRect().width : 0;
  }

  remove() {
    this.root.remove();
  }
}
