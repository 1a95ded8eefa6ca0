// `<tiler-viewer>`'s on-screen controls (boolean attribute `controls`, property `showsControls`; off by default, as a
// UIScrollView has none): zoom in, zoom out, home (fit), full screen, rotate 90° and flip — OpenSeadragon's set, so a
// visitor of a page can tell that the image zooms without having to try. Buttons in the element's shadow root (part
// `controls`), each with an accessible name and a 44-point touch target on touch screens.

/** The attribute that turns them on. */
export const CONTROLS_ATTRIBUTE = 'controls';

/** Each button: its name (accessible name and tooltip), its icon (SVG path data, 24 × 24) and what it does. */
const BUTTONS = [
  ['zoom-in', 'Zoom in', 'M11 5v12M5 11h12', (v) => v.zoomAroundCentre(2)],
  ['zoom-out', 'Zoom out', 'M5 11h12', (v) => v.zoomAroundCentre(0.5)],
  ['home', 'Fit the whole image', 'M4 11l7-6 7 6M6 9.5V18h10V9.5', (v) => v.controller?.fit(performance.now())],
  ['fullscreen', 'Full screen', 'M4 9V4h5M13 4h5v5M18 13v5h-5M9 18H4v-5', (v) => v.toggleFullscreen()],
  ['rotate', 'Rotate 90° clockwise', 'M17 8a7 7 0 1 0 1.5 6M17 3v5h-5', (v) => v.rotate(90)],
  ['flip', 'Flip left and right', 'M11 3v16M8 6L4 17h4zM14 6l4 11h-4z', (v) => v.flip()],
];

export const CONTROLS_STYLE = `
.controls { position: absolute; z-index: 3; top: 10px; left: 10px; display: flex; gap: 2px; padding: 3px;
  border-radius: 9px; background: rgba(20, 21, 24, 0.72); box-shadow: 0 2px 10px rgba(0, 0, 0, 0.35); }
.controls[hidden] { display: none; }
.controls button { display: flex; align-items: center; justify-content: center; width: 34px; height: 34px; padding: 0;
  border: 0; border-radius: 7px; background: transparent; color: #fff; cursor: pointer; }
.controls button:hover { background: rgba(255, 255, 255, 0.16); }
.controls button:focus-visible { outline: 2px solid #5aa9ff; outline-offset: 1px; }
.controls button[aria-pressed="true"] { background: rgba(90, 169, 255, 0.35); }
.controls svg { width: 22px; height: 22px; fill: none; stroke: currentColor; stroke-width: 1.8; stroke-linecap: round; stroke-linejoin: round; }
@media (pointer: coarse) { .controls button { width: 44px; height: 44px; } }
`;

/**
 * The controls of one element, made when first shown.
 */
export class ViewerControls {
  /** @param {HTMLElement & {shadowRoot: ShadowRoot}} element */
  constructor(element) {
    this.element = element;
    this.root = null;
  }

  /** Shows or hides them. */
  show(on) {
    if (on && !this.root) this.build();
    if (this.root) this.root.hidden = !on;
  }

  build() {
    this.root = document.createElement('div');
    this.root.className = 'controls';
    this.root.setAttribute('part', 'controls');
    this.root.setAttribute('role', 'toolbar');
    this.root.setAttribute('aria-label', 'Image controls');
    this.buttons = {};
    for (const [id, label, path, action] of BUTTONS) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = id;
      button.title = label;
      button.setAttribute('aria-label', label);
      button.innerHTML = `<svg viewBox="0 0 22 22" aria-hidden="true" focusable="false"><path d="${path}"/></svg>`;
      // The controls sit over the stage: their presses are not drags, and clicks do not take the focus from the host.
      button.addEventListener('pointerdown', (e) => e.stopPropagation());
      button.addEventListener('click', () => action(this.element));
      this.buttons[id] = button;
      this.root.append(button);
    }
    this.element.shadowRoot.append(this.root);
    this.update();
  }

  /** Reflects the state in the buttons (flip pressed, full screen's name). */
  update() {
    if (!this.root) return;
    const full = document.fullscreenElement === this.element;
    const fullscreen = this.buttons.fullscreen;
    const name = full ? 'Leave full screen' : 'Full screen';
    fullscreen.title = name;
    fullscreen.setAttribute('aria-label', name);
    fullscreen.hidden = !document.fullscreenEnabled;
    this.buttons.flip.setAttribute('aria-pressed', String(this.element.flipped));
  }
}
