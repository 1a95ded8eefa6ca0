// The navigator: a minimap of the whole image (drawn from the overview tile the viewer already holds) with the
// viewport's rectangle on it. Clicking or dragging in it centres the view on that point.

/** The navigator's longest side, in CSS pixels. */
const NAVIGATOR_SIZE = 168;

/**
 * A minimap of one image.
 */
export class Navigator {
  /**
   * @param {HTMLElement} parent Where to add it.
   * @param {import('./geometry.js').Pyramid} pyramid
   * @param {(imagePoint: {x: number, y: number}) => void} onMove Called with the image point to centre on.
   */
  constructor(parent, pyramid, onMove) {
    this.pyramid = pyramid;
    this.onMove = onMove;
    this.scale = NAVIGATOR_SIZE / Math.max(pyramid.width, pyramid.height);
    this.width = Math.max(1, Math.round(pyramid.width * this.scale));
    this.height = Math.max(1, Math.round(pyramid.height * this.scale));
    this.root = document.createElement('div');
    this.root.className = 'navigator';
    this.root.setAttribute('part', 'navigator');
    this.root.setAttribute('aria-label', 'Navigator: click or drag to move the view');
    this.root.style.width = `${this.width}px`;
    this.root.style.height = `${this.height}px`;
    this.canvas = document.createElement('canvas');
    this.box = document.createElement('div');
    this.box.className = 'navigator-viewport';
    this.root.append(this.canvas, this.box);
    parent.append(this.root);
    this.drawn = false;
    this.lastBox = '';
    this.dragging = null;
    this.root.addEventListener('pointerdown', (e) => this.down(e));
    this.root.addEventListener('pointermove', (e) => this.dragging === e.pointerId && this.moveTo(e));
    const end = (e) => {
      if (this.dragging === e.pointerId) this.dragging = null;
    };
    this.root.addEventListener('pointerup', end);
    this.root.addEventListener('pointercancel', end);
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
   * Moves the viewport rectangle to the part of the image `rect` (image pixels) shows, clipped to the image.
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
    this.root.setPointerCapture?.(e.pointerId);
    this.dragging = e.pointerId;
    this.moveTo(e);
  }

  moveTo(e) {
    const r = this.root.getBoundingClientRect();
    const x = Math.min(Math.max(e.clientX - r.left, 0), this.width) / this.scale;
    const y = Math.min(Math.max(e.clientY - r.top, 0), this.height) / this.scale;
    this.onMove({ x, y });
  }
}
