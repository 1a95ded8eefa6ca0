// The viewer's chrome: a top bar (back to the list, the image's name and size, a loading indicator, the zoom
// readout — a slide's magnification — zoom, rotate and full-screen buttons, and a slide's panel toggle) and an error
// banner with a Retry button for tiles that failed. On a phone the back button is an icon with an accessible name,
// the title takes the room left, and every control is a 44-point touch target (viewer.css).

/**
 * Formats a zoom scale (points per image pixel) as a percentage: `33%`, `0.4%`, `200%`.
 * @param {number} zoomScale
 * @returns {string}
 */
export function formatZoom(zoomScale) {
  const percent = zoomScale * 100;
  if (percent >= 10) return `${Math.round(percent)}%`;
  if (percent >= 1) return `${percent.toFixed(1).replace(/\.0$/, '')}%`;
  return `${percent.toPrecision(2)}%`;
}

/** Icons (SVG path data on a 20 × 20 grid): they scale with the text and need no font. */
const ICONS = {
  back: 'M12.5 4 6.5 10l6 6',
  rotate: 'M15 6.5A6.5 6.5 0 1 0 16.5 12M15.5 2.5v4h-4',
  fullscreen: 'M3.5 7.5v-4h4M12.5 3.5h4v4M16.5 12.5v4h-4M7.5 16.5h-4v-4',
  slide: 'M3.5 4.5h13v11h-13zM8 4.5v11',
};

/** An inline SVG icon, hidden from screen readers (its button has the name). */
function icon(name) {
  return `<svg class="glyph" viewBox="0 0 20 20" aria-hidden="true" focusable="false"><path d="${ICONS[name]}"/></svg>`;
}

/** Creates an element with a class and optional text. */
function element(tag, className, text = '') {
  const node = document.createElement(tag);
  node.className = className;
  if (text) node.textContent = text;
  return node;
}

/**
 * The top bar and the error banner of one open image.
 */
export class StatusBar {
  /**
   * @param {HTMLElement} parent
   * @param {{name: string, width: number, height: number}} image
   * @param {{onZoomIn: () => void, onZoomOut: () => void, onFit: () => void, onRetry: () => void, onRotate?: () => void,
   *   onFullscreen?: () => void, onSlide?: () => void}} actions The last three add their buttons.
   * @param {{formatZoom?: (zoomScale: number) => string}} [options] How the zoom reads (a slide's magnification).
   */
  constructor(parent, image, actions, { formatZoom: format = formatZoom } = {}) {
    this.format = format;
    this.bar = element('header', 'bar');
    const back = element('a', 'back');
    back.href = '#';
    back.title = 'All images';
    back.setAttribute('aria-label', 'All images');
    back.innerHTML = `${icon('back')}<span class="back-text" aria-hidden="true">Images</span>`;
    const title = element('div', 'title');
    const size = `${image.width.toLocaleString('en')} × ${image.height.toLocaleString('en')} px`;
    title.append(element('span', 'name', image.name), element('span', 'size', size));
    this.spinner = element('div', 'spinner');
    // The element's live region says when the image is loading; the spinner is for the eyes.
    this.spinner.setAttribute('aria-hidden', 'true');
    this.spinner.title = 'Loading tiles';
    this.zoom = element('output', 'zoom', '');
    // Read out once a zoom has come to rest (the element's live region), not at every frame of it.
    this.zoom.setAttribute('aria-live', 'off');
    const buttons = element('div', 'buttons');
    const button = (label, text, action, className = '') => {
      const b = element('button', `icon ${className}`.trim(), text);
      if (ICONS[className]) b.innerHTML = icon(className);
      b.type = 'button';
      b.title = label;
      b.setAttribute('aria-label', label);
      b.addEventListener('click', action);
      return b;
    };
    buttons.append(
      button('Zoom out (−)', '−', actions.onZoomOut),
      button('Fit the image (0)', 'Fit', actions.onFit),
      button('Zoom in (+)', '+', actions.onZoomIn),
    );
    if (actions.onRotate) buttons.append(button('Rotate 90° clockwise (R)', '', actions.onRotate, 'rotate'));
    if (actions.onFullscreen && document.fullscreenEnabled) buttons.append(button('Full screen (F)', '', actions.onFullscreen, 'fullscreen'));
    const items = [back, title, this.spinner, this.zoom];
    if (actions.onSlide) {
      this.slideButton = button('Slide details', '', actions.onSlide, 'slide');
      this.slideButton.setAttribute('aria-controls', 'slide-panel');
      const group = element('div', 'buttons slide-toggle');
      group.append(this.slideButton);
      items.push(group);
    }
    this.bar.append(...items, buttons);
    this.banner = element('div', 'banner');
    this.banner.setAttribute('role', 'alert');
    this.message = element('span', 'message');
    this.retry = element('button', 'retry', 'Retry');
    this.retry.type = 'button';
    this.retry.addEventListener('click', actions.onRetry);
    this.banner.append(this.message, this.retry);
    this.banner.hidden = true;
    parent.append(this.bar, this.banner);
    this.last = {};
  }

  /**
   * Shows the current state; touches the DOM only for what changed.
   * @param {{zoomScale: number, devicePixelRatio: number, loading: boolean, error: string | null}} state
   */
  update({ zoomScale, devicePixelRatio, loading, error }) {
    const zoom = this.format(zoomScale);
    if (zoom !== this.last.zoom) {
      this.zoom.textContent = zoom;
      this.zoom.title = `${(zoomScale * devicePixelRatio).toPrecision(3)} device pixels per image pixel`;
    }
    if (loading !== this.last.loading) this.spinner.classList.toggle('active', loading);
    if (error !== this.last.error) {
      this.banner.hidden = !error;
      this.message.textContent = error ?? '';
    }
    this.last = { zoom, loading, error };
  }

  /** Shows whether the slide panel is open. */
  slideOpen(open) {
    this.slideButton?.setAttribute('aria-expanded', String(open));
  }

  /** Removes the chrome from the page. */
  remove() {
    this.bar.remove();
    this.banner.remove();
  }
}
