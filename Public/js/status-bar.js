// The viewer's chrome: a top bar (back to the list, the image's name and size, a loading indicator, the zoom
// readout and zoom buttons) and an error banner with a Retry button for tiles that failed.

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
   * @param {{onZoomIn: () => void, onZoomOut: () => void, onFit: () => void, onRetry: () => void}} actions
   */
  constructor(parent, image, actions) {
    this.bar = element('header', 'bar');
    const back = element('a', 'back', '← Images');
    back.href = '#';
    back.title = 'All images';
    const title = element('div', 'title');
    const size = `${image.width.toLocaleString('en')} × ${image.height.toLocaleString('en')} px`;
    title.append(element('span', 'name', image.name), element('span', 'size', size));
    this.spinner = element('div', 'spinner');
    this.spinner.setAttribute('role', 'status');
    this.spinner.title = 'Loading tiles';
    this.zoom = element('output', 'zoom', '');
    const buttons = element('div', 'buttons');
    const button = (label, text, action) => {
      const b = element('button', 'icon', text);
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
    this.bar.append(back, title, this.spinner, this.zoom, buttons);
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
    const zoom = formatZoom(zoomScale);
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

  /** Removes the chrome from the page. */
  remove() {
    this.bar.remove();
    this.banner.remove();
  }
}
