// UIScrollView's scroll indicators: thin bars along the right and bottom edges, inset by `scrollIndicatorInsets`,
// sized by the visible fraction of the content and shortened while it is rubber-banded; shown while the content
// moves, kept while a finger stays down on it, and faded out shortly after it stops (or flashed on request). Three
// styles, as UIKit's `indicatorStyle`: `default` (dark with a light border), `black` and `white` (narrower).

/** How long the bars stay after the last movement, in ms, before they fade. */
const LINGER_MS = 500;
/** Bar thickness by style and the smallest length, in points. */
const THICKNESS = { default: 3, black: 2.5, white: 2.5 };
const MIN_LENGTH = 24;
/** UIKit's indicator styles. */
export const INDICATOR_STYLES = Object.freeze(Object.keys(THICKNESS));
/** Distance from the edge, in points. */
const MARGIN = 3;

/**
 * The two indicator bars inside `parent` (positioned absolutely over the content).
 */
export class ScrollIndicators {
  /** @param {HTMLElement | ShadowRoot} parent */
  constructor(parent) {
    this.horizontal = bar('indicator horizontal');
    this.vertical = bar('indicator vertical');
    parent.append(this.horizontal, this.vertical);
    this.showsHorizontal = true;
    this.showsVertical = true;
    this.insets = { top: 0, left: 0, bottom: 0, right: 0 };
    this.visibleUntil = 0;
    this.held = false;
    this.style = 'default';
  }

  /** `default`, `black` or `white`. */
  get style() {
    return this.styleName;
  }

  set style(name) {
    this.styleName = name;
    this.horizontal.className = `indicator horizontal ${name}`;
    this.vertical.className = `indicator vertical ${name}`;
  }

  /** Shows the bars until `LINGER_MS` after `now` (the content moved). */
  poke(now) {
    this.visibleUntil = now + LINGER_MS;
  }

  /** Whether the bars are shown at `now`. */
  visibleAt(now) {
    return this.held || now < this.visibleUntil;
  }

  /**
   * Keeps bars that are showing while a finger is down (`tracking`), as UIKit does; once it lifts they linger
   * `LINGER_MS` and fade.
   */
  hold(tracking, now) {
    if (tracking && !this.held && this.visibleAt(now)) this.held = true;
    else if (!tracking && this.held) {
      this.held = false;
      this.poke(now);
    }
  }

  /**
   * Places the bars for the scroll view's state at `now`.
   * @param {import('./scroll-view.js').ScrollView} sv
   * @param {number} now
   * @returns {boolean} Whether another frame will be needed to hide them (shown and not held).
   */
  update(sv, now) {
    const shown = this.visibleAt(now);
    const thickness = THICKNESS[this.styleName];
    const b = sv.boundsAt();
    const size = sv.viewportSize;
    const i = this.insets;
    const place = (element, show, offset, min, max, viewport, start, end) => {
      const track = viewport - start - end - 2 * MARGIN;
      if (!show || max <= min || track <= MIN_LENGTH) {
        element.style.opacity = '0';
        return;
      }
      const visible = viewport / (viewport + max - min);
      let length = Math.max(MIN_LENGTH, track * visible);
      const over = offset < min ? min - offset : offset > max ? offset - max : 0;
      length = Math.max(thickness * 2, length - over);
      const fraction = Math.min(Math.max((offset - min) / (max - min), 0), 1);
      element.style.opacity = shown ? '1' : '0';
      return `${start + MARGIN + (track - length) * fraction}/${length}`;
    };
    const h = place(this.horizontal, this.showsHorizontal, sv.x, b.minX, b.maxX, size.width, i.left, i.right + thickness + MARGIN);
    const v = place(this.vertical, this.showsVertical, sv.y, b.minY, b.maxY, size.height, i.top, i.bottom + thickness + MARGIN);
    if (h) {
      const [left, width] = h.split('/');
      Object.assign(this.horizontal.style, { left: `${left}px`, width: `${width}px`, bottom: `${i.bottom + MARGIN}px`, height: `${thickness}px` });
    }
    if (v) {
      const [top, height] = v.split('/');
      Object.assign(this.vertical.style, { top: `${top}px`, height: `${height}px`, right: `${i.right + MARGIN}px`, width: `${thickness}px` });
    }
    return shown && !this.held;
  }
}

function bar(className) {
  const element = document.createElement('div');
  element.className = className;
  element.setAttribute('part', className);
  return element;
}
