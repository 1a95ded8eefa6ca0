// `<tiler-viewer>` for screen readers and keyboards: the host's role (`application`, so a screen reader passes the
// arrow keys on to it) and accessible name (from the `alt` or `label` attribute, else the image's name, saying it is a
// zoomable image and where the keys are told; a page's own `aria-label` wins), a polite live region that says when the image
// is loading and when it is loaded, and the zoom once a zoom has come to rest, and the keyboard help that `?` shows.

/** The attributes handled here. */
export const A11Y_ATTRIBUTES = ['alt', 'label', 'aria-label'];

/** How long loading must last before it is announced, and a zoom must rest before it is, in ms. */
const LOADING_ANNOUNCE_MS = 600;
const ZOOM_ANNOUNCE_MS = 400;

/** The keys, as the help lists them. */
export const KEYS = [
  ['← → ↑ ↓', 'Move the view'],
  ['+ / −', 'Zoom in / out'],
  ['0', 'Fit the whole image'],
  ['Home', 'Scroll to the top'],
  ['R / Shift+R', 'Rotate 90° clockwise / anticlockwise'],
  ['M', 'Mirror (flip left and right)'],
  ['F', 'Full screen'],
  ['?', 'Show or hide this help'],
  ['Esc', 'Close this help'],
];

/** The styles of the live region and the help. */
export const A11Y_STYLE = `
.live { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.help { position: absolute; z-index: 4; left: 50%; top: 50%; transform: translate(-50%, -50%); width: max-content; max-width: calc(100% - 24px);
  max-height: calc(100% - 24px); overflow: auto; box-sizing: border-box; padding: 12px 16px; border-radius: 10px;
  background: rgba(20, 21, 24, 0.94); color: #ececef; font: 13px/1.45 system-ui, sans-serif; box-shadow: 0 6px 24px rgba(0, 0, 0, 0.5); }
.help[hidden] { display: none; }
.help h2 { margin: 0 0 6px; font-size: 14px; }
.help table { border-collapse: collapse; }
.help th { text-align: left; padding: 2px 14px 2px 0; font-weight: 600; white-space: nowrap; }
.help td { padding: 2px 0; }
`;

/**
 * The accessibility parts of one element.
 */
export class ViewerA11y {
  /** @param {HTMLElement & {shadowRoot: ShadowRoot}} element */
  constructor(element) {
    this.element = element;
    this.live = document.createElement('div');
    this.live.className = 'live';
    this.live.setAttribute('role', 'status');
    this.live.setAttribute('aria-live', 'polite');
    this.help = document.createElement('div');
    this.help.className = 'help';
    this.help.setAttribute('part', 'help');
    this.help.setAttribute('role', 'dialog');
    this.help.setAttribute('aria-label', 'Keyboard help');
    this.help.hidden = true;
    const title = document.createElement('h2');
    title.textContent = 'Keyboard';
    const table = document.createElement('table');
    for (const [keys, what] of KEYS) {
      const row = table.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = keys;
      row.append(th);
      row.insertCell().textContent = what;
    }
    this.help.append(title, table);
    element.shadowRoot.append(this.live, this.help);
    /** What the live region said, the latest last (for tests and debugging; at most 20). */
    this.said = [];
    /** Whether the host's `aria-label` is ours (else the page set it and it is left alone). */
    this.ownLabel = false;
    this.loadingTimer = 0;
    this.zoomTimer = 0;
    this.loadingSaid = false;
    this.zoomSaid = null;
    /** How a zoom is put in words (the app says a slide's magnification); the element's default is a percentage. */
    this.describeZoom = (zoomScale) => `Zoom ${formatPercent(zoomScale)}`;
  }

  /** Sets the host's role and name (once connected; a page's own `role` and `aria-label` are kept). */
  connected() {
    const host = this.element;
    // (No `aria-roledescription`: "zoomable image" is said in the name, which every checker and reader knows.)
    if (!host.hasAttribute('role')) host.setAttribute('role', 'application');
    this.updateLabel();
  }

  /** The accessible name: `alt`, else `label`, else the image's name, else "Image"; then what it is and the `?` key. */
  updateLabel() {
    const host = this.element;
    if (host.hasAttribute('aria-label') && !this.ownLabel) return;
    const text = host.getAttribute('alt') || host.getAttribute('label') || host.source?.name || 'Image';
    this.ownLabel = true;
    this.settingLabel = true;
    host.setAttribute('aria-label', `${text} (zoomable image; press ? for keyboard help)`);
    this.settingLabel = false;
  }

  /** An attribute of {@link A11Y_ATTRIBUTES} changed. */
  attributeChanged(name, value) {
    if (name === 'aria-label') {
      // The page setting its own name takes over; removing it gives the name back to `alt`/`label`.
      if (!this.settingLabel) this.ownLabel = value === null;
      if (value === null) this.updateLabel();
      return;
    }
    this.updateLabel();
  }

  /** Says `text` in the live region. */
  say(text) {
    // The same words again are only read out if the region's text changes: clear it first.
    if (this.live.textContent === text) this.live.textContent = '';
    requestAnimationFrame(() => (this.live.textContent = text));
    this.said = [...this.said.slice(-19), text];
  }

  /** The tiles' state: announces loading that lasts, and its end. */
  loading(isLoading, error) {
    clearTimeout(this.loadingTimer);
    if (isLoading) {
      this.loadingTimer = setTimeout(() => {
        this.loadingSaid = true;
        this.say('Loading the image…');
      }, LOADING_ANNOUNCE_MS);
    } else if (this.loadingSaid && !error) {
      this.loadingSaid = false;
      this.say('Image loaded.');
    }
  }

  /** A frame with the view at `zoomScale` (`idle`: no gesture or animation): the zoom is said once it rests. */
  zoomed(zoomScale, idle) {
    if (this.zoomSaid === null) this.zoomSaid = zoomScale; // The first view is the image opening: nothing to say.
    if (!idle || Math.abs(zoomScale - this.zoomSaid) <= 1e-9 * zoomScale) {
      if (!idle) clearTimeout(this.zoomTimer);
      return;
    }
    clearTimeout(this.zoomTimer);
    this.zoomTimer = setTimeout(() => {
      const z = this.element.zoomScale;
      if (Math.abs(z - this.zoomSaid) <= 1e-9 * z) return;
      this.zoomSaid = z;
      this.say(this.describeZoom(z));
    }, ZOOM_ANNOUNCE_MS);
  }

  /** A new image: its zoom is not news. */
  reset() {
    this.zoomSaid = null;
    clearTimeout(this.zoomTimer);
    this.updateLabel();
  }

  /** Shows or hides the keyboard help (`show` undefined: toggles). @returns {boolean} Whether it is shown. */
  toggleHelp(show = this.help.hidden) {
    this.help.hidden = !show;
    return show;
  }
}

/** A zoom scale as a percentage: `33%`, `0.4%`, `200%`. */
export function formatPercent(zoomScale) {
  const percent = zoomScale * 100;
  if (percent >= 10) return `${Math.round(percent)}%`;
  if (percent >= 1) return `${percent.toFixed(1).replace(/\.0$/, '')}%`;
  return `${percent.toPrecision(2)}%`;
}
