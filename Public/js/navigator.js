// The navigator: a minimap of the whole image (drawn from the overview tile the viewer already holds) with the
// viewport's rectangle on it, turned as the view is (orientation.js). Clicking or dragging in it centres the view on
// that point; it takes the keyboard focus too, and its arrow keys move the view (a keyboard user's drag).

import { UPRIGHT, orientationMatrix, shownSize, toStored } from './orientation.js';

/** The navigator's longest side, in CSS pixels. */
const NAVIGATOR_SIZE = 168;

/**
 * The minimap's scale (CSS pixels per image pixel) for an image of `width` × `height`: its longest side
 * {@link NAVIGATOR_SIZE}, but never enlarged — the main view never shows a small image above 1:1 when fitted, and the
 * overview of the whole must not be larger than the whole (a 16 × 16 slide gets a 16 × 16 navigator).
 */
export function navigatorScale(width, height) {
  return Math.min(1, NAVIGATOR_SIZE / Math.max(width, height));
}

/**
 * A minimap of one image.
 */
export class Navigator {
  /**
   * @param {HTMLElement} parent Where to add it.
   * @param {import('./geometry.js').Pyramid} pyramid
   * @param {(imagePoint: {x: number, y: number}) => void} onMove Called with the image point (as stored) to centre on.
   * @param {(dx: number, dy: number) => void} [onStep] An arrow key: move the view one step that way (−1, 0, 1 each,
   *   on screen).
   */
  constructor(parent, pyramid, onMove, onStep = () => {}) {
    this.pyramid = pyramid;
    this.onMove = onMove;
    this.onStep = onStep;
    this.scale = navigatorScale(pyramid.width, pyramid.height);
    this.width = Math.max(1, Math.round(pyramid.width * this.scale));
    this.height = Math.max(1, Math.round(pyramid.height * this.scale));
    this.root = document.createElement('div');
    this.root.className = 'navigator';
    this.root.setAttribute('part', 'navigator');
    this.root.tabIndex = 0;
    this.root.setAttribute('role', 'application');
    this.root.setAttribute('aria-label', 'Navigator: click, drag or use the arrow keys to move the view');
    /** The image as stored, turned into place by a CSS transform. */
    this.image = document.createElement('div');
    this.image.className = 'navigator-image';
    this.image.style.width = `${this.width}px`;
    this.image.style.height = `${this.height}px`;
    this.canvas = document.createElement('canvas');
    this.box = document.createElement('div');
    this.box.className = 'navigator-viewport';
    this.image.append(this.canvas, this.box);
    this.root.append(this.image);
    parent.append(this.root);
    this.drawn = false;
    this.lastBox = '';
    this.dragging = null;
    this.setOrientation(UPRIGHT);
    this.root.addEventListener('pointerdown', (e) => this.down(e));
    this.root.addEventListener('pointermove', (e) => this.dragging === e.pointerId && this.moveTo(e));
    const end = (e) => {
      if (this.dragging === e.pointerId) this.dragging = null;
    };
    this.root.addEventListener('pointerup', end);
    this.root.addEventListener('pointercancel', end);
    this.root.addEventListener('keydown', (e) => this.key(e));
  }

  /** Turns the minimap as the view is turned. */
  setOrientation(o) {
    this.orientation = o;
    const shown = shownSize({ width: this.width, height: this.height }, o);
    this.root.style.width = `${shown.width}px`;
    this.root.style.height = `${shown.height}px`;
    this.image.style.transform = `matrix(${orientationMatrix(o, this.width, this.height).join(', ')})`;
  }

  /** The navigator's size on screen, in CSS pixels (its sides swap on a quarter turn). */
  get shownSize() {
    return shownSize({ width: this.width, height: this.height }, this.orientation);
  }

  /** Draws the minimap from the overview `bitmap` once it is loaded (later calls do nothing). */
  drawOverview(bitmap, devicePixelRatio) {
    if (this.drawn || !bitmap) return;
    this.drawn = true;
    this.canvas.width = Math.round(this.width * devicePixelRatio);
    this.canvas.height = Math.round(this.height * devicePixelRatio);
    const ctx = this.canvas.getContext('2d');
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, 0, 0, this.canvas.width, this.canvas.height);
  }

  /**
   * Moves the viewport rectangle to the part of the image `rect` (image pixels, as stored) shows, clipped to the image.
   * @param {{minX: number, minY: number, maxX: number, maxY: number}} rect
   */
  update(rect) {
    const s = this.scale;
    const x0 = Math.max(0, rect.minX) * s;
    const y0 = Math.max(0, rect.minY) * s;
    const x1 = Math.min(this.pyramid.width, rect.maxX) * s;
    const y1 = Math.min(this.pyramid.height, rect.maxY) * s;
    const box = `${x0.toFixed(1)},${y0.toFixed(1)},${Math.max(0, x1 - x0).toFixed(1)},${Math.max(0, y1 - y0).toFixed(1)}`;
    if (box === this.lastBox) return;
    this.lastBox = box;
    const [left, top, width, height] = box.split(',');
    Object.assign(this.box.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
  }

  /** Removes the navigator from the page. */
  remove() {
    this.root.remove();
  }

  down(e) {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    e.preventDefault();
    e.stopPropagation();
    this.root.focus({ preventScroll: true });
    this.root.setPointerCapture?.(e.pointerId);
    this.dragging = e.pointerId;
    this.moveTo(e);
  }

  moveTo(e) {
    const r = this.root.getBoundingClientRect();
    const shown = this.shownSize;
    const point = { x: Math.min(Math.max(e.clientX - r.left, 0), shown.width), y: Math.min(Math.max(e.clientY - r.top, 0), shown.height) };
    const stored = toStored(point, this.orientation, { width: this.width, height: this.height });
    this.onMove({ x: stored.x / this.scale, y: stored.y / this.scale });
  }

  /** Arrow keys step the view; the element's own keys (zoom, help) still reach it. */
  key(e) {
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const step = steps[e.key];
    if (!step || e.ctrlKey || e.altKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation();
    this.onStep(...step);
  }
}
