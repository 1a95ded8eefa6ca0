// Pointer events (mouse, touch and pen) and wheel events on the viewer, turned into ScrollController calls:
// one pointer drags (unless `minimumTouches` is 2: then one finger or pen is left to the page), two pan at their
// midpoint and pinch once they spread or close, a quick second tap zooms in 2× (shift: out), a quick two-finger
// tap zooms out, the wheel and trackpad pinch zoom around the pointer (the wheel scrolls when the zoom is locked).

/** A tap moves less than this many points (touch is less precise than a mouse). */
const TAP_SLOP = { mouse: 4, pen: 8, touch: 12 };
/** Two taps closer in time than this (ms) and space (points) make a double tap. */
const DOUBLE_TAP_MS = 350;
const DOUBLE_TAP_DISTANCE = 30;
/** A two-finger tap lifts within this many ms of the second finger landing. */
const TWO_FINGER_TAP_MS = 300;
/** Wheel zoom: 100 points of wheel (one mouse notch) zoom by 2^(1/4). Trackpad pinch: 100 points zoom by e. */
const WHEEL_POINTS_PER_DOUBLING = 400;
const PINCH_WHEEL_RATE = 0.01;
/** A wheel zoom ends (and settles back into the zoom limits) after the wheel has been still this long, in ms. */
const WHEEL_END_MS = 150;

const slopOf = (type) => TAP_SLOP[type] ?? TAP_SLOP.touch;

/**
 * Listens to `element` and drives `controller`.
 */
export class GestureInput {
  /**
   * @param {HTMLElement} element The viewer's surface.
   * @param {import('./scroll-controller.js').ScrollController} controller
   * @param {HTMLElement} [focusTarget] What takes the keyboard focus on a press (default: `element`).
   */
  constructor(element, controller, focusTarget = element) {
    this.element = element;
    this.controller = controller;
    this.focusTarget = focusTarget;
    /**
     * UIKit's `panGestureRecognizer.minimumNumberOfTouches` for fingers and pens: 1, or 2 to leave one-finger
     * drags to the page (the element's `touch-action` lets the browser scroll it). A mouse always drags.
     */
    this.minimumTouches = 1;
    this.wheelTimer = 0;
    /** @type {Map<number, {x: number, y: number, startX: number, startY: number, type: string}>} */
    this.pointers = new Map();
    this.panning = false;
    this.lastTap = null;
    this.twoFinger = null;
    this.pressStart = 0;
    this.moved = false;
    this.gestureScale = 1;
    this.box = null;
    this.listeners = {
      pointerdown: (e) => this.down(e),
      pointermove: (e) => this.move(e),
      pointerup: (e) => this.up(e, false),
      pointercancel: (e) => this.up(e, true),
      wheel: (e) => this.wheel(e),
      // With one-finger drags left to the page, the browser must not take a two-finger touch as its own scroll.
      touchstart: (e) => this.claimTwoFingers(e),
      touchmove: (e) => this.claimTwoFingers(e),
      // Safari reports trackpad pinches as its own gesture events instead of ctrl+wheel.
      gesturestart: (e) => this.safariGesture(e, true),
      gesturechange: (e) => this.safariGesture(e, false),
      gestureend: (e) => {
        e.preventDefault();
        this.controller.endWheelZoom(e.timeStamp);
      },
    };
    for (const [type, listener] of Object.entries(this.listeners)) element.addEventListener(type, listener, { passive: false });
  }

  /** Stops listening. */
  detach() {
    clearTimeout(this.wheelTimer);
    for (const [type, listener] of Object.entries(this.listeners)) this.element.removeEventListener(type, listener);
  }

  /** The event's position in viewport points (the element's box is measured once per press, not per move). */
  point(e) {
    this.box ??= this.element.getBoundingClientRect();
    return { x: e.clientX - this.box.left, y: e.clientY - this.box.top };
  }

  /** The first two pointers' positions. */
  pair() {
    const [a, b] = [...this.pointers.values()];
    return [a, b];
  }

  /** Whether a single pointer of `type` pans (a mouse always does; a finger or pen unless `minimumTouches` is 2). */
  pansAlone(type) {
    return type === 'mouse' || this.minimumTouches < 2;
  }

  claimTwoFingers(e) {
    if (this.minimumTouches >= 2 && e.touches.length >= 2 && e.cancelable) e.preventDefault();
  }

  down(e) {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    if (this.pointers.size >= 2) return;
    e.preventDefault();
    if (this.pointers.size === 0) this.box = null;
    this.element.setPointerCapture?.(e.pointerId);
    this.focusTarget.focus({ preventScroll: true });
    const p = this.point(e);
    const t = e.timeStamp;
    this.pointers.set(e.pointerId, { ...p, startX: p.x, startY: p.y, type: e.pointerType });
    if (this.pointers.size === 1) {
      this.pressStart = t;
      this.moved = false;
      this.twoFinger = null;
      this.panning = this.pansAlone(e.pointerType);
      if (this.panning) this.controller.beginPan(p, t, slopOf(e.pointerType));
    } else {
      const [a, b] = this.pair();
      this.twoFinger = { start: t, moved: false, mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
      this.panning = true;
      this.controller.addFinger(a, b, t, slopOf(e.pointerType));
    }
  }

  move(e) {
    const pointer = this.pointers.get(e.pointerId);
    if (!pointer) return;
    e.preventDefault();
    const p = this.point(e);
    pointer.x = p.x;
    pointer.y = p.y;
    if (Math.hypot(p.x - pointer.startX, p.y - pointer.startY) > slopOf(pointer.type)) {
      this.moved = true;
      if (this.twoFinger) this.twoFinger.moved = true;
    }
    if (this.pointers.size === 1) {
      if (this.panning) this.controller.pan(p, e.timeStamp);
      return;
    }
    this.controller.moveFingers(...this.pair(), e.timeStamp);
    // A pinch, however small, is not a tap.
    if (this.twoFinger && this.controller.gesture?.kind === 'pinch') this.twoFinger.moved = true;
  }

  up(e, cancelled) {
    const pointer = this.pointers.get(e.pointerId);
    if (!pointer) return;
    this.pointers.delete(e.pointerId);
    const t = e.timeStamp;
    if (this.pointers.size === 1) {
      // One of two fingers lifted: a pinch ends; the other finger pans on (from where it is) if it may alone.
      const [rest] = this.pointers.values();
      rest.startX = rest.x;
      rest.startY = rest.y;
      this.panning = this.pansAlone(rest.type);
      this.controller.liftFinger(rest, t, { slop: slopOf(rest.type), continues: this.panning });
      return;
    }
    if (this.panning) this.controller.endPan(cancelled ? Infinity : t);
    this.panning = false;
    if (cancelled) return;
    if (this.twoFinger) return this.finishTwoFingerTap(t);
    if (this.moved || t - this.pressStart > DOUBLE_TAP_MS) {
      this.lastTap = null;
      return;
    }
    const p = { x: pointer.x, y: pointer.y };
    const last = this.lastTap;
    if (last && t - last.t < DOUBLE_TAP_MS && Math.hypot(p.x - last.p.x, p.y - last.p.y) < DOUBLE_TAP_DISTANCE) {
      this.lastTap = null;
      this.controller.zoomBy(e.shiftKey ? 0.5 : 2, p, t);
    } else {
      this.lastTap = { t, p };
    }
  }

  /** Both fingers of a two-finger touch are up: a quick one without movement zooms out around its midpoint. */
  finishTwoFingerTap(t) {
    const tap = this.twoFinger;
    this.twoFinger = null;
    this.lastTap = null;
    if (!tap.moved && t - tap.start < TWO_FINGER_TAP_MS) this.controller.zoomBy(0.5, tap.mid, t);
  }

  safariGesture(e, starting) {
    e.preventDefault();
    if (starting) this.gestureScale = 1;
    if (!(e.scale > 0) || this.pointers.size > 0) return;
    this.controller.zoomAt(e.scale / this.gestureScale, this.point(e));
    this.gestureScale = e.scale;
  }

  wheel(e) {
    e.preventDefault();
    if (this.pointers.size === 0) this.box = null;
    const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? this.element.clientHeight : 1;
    const dx = e.deltaX * unit;
    const dy = e.deltaY * unit;
    const p = this.point(e);
    const zooms = this.controller.zoomEnabled || this.controller.gesture?.kind === 'wheel';
    if (e.ctrlKey) {
      // A trackpad pinch arrives as a wheel event with ctrlKey set.
      if (zooms) this.wheelZoom(Math.exp(-dy * PINCH_WHEEL_RATE), p);
    } else if (!zooms) {
      // The zoom is locked (equal limits): the wheel scrolls, as on a Mac.
      this.controller.scrollBy(dx, dy);
    } else if (Math.abs(dx) > Math.abs(dy)) {
      this.controller.scrollBy(dx, 0);
    } else if (dy !== 0) {
      this.wheelZoom(2 ** (-dy / WHEEL_POINTS_PER_DOUBLING), p);
    }
  }

  /** One step of a wheel zoom; the burst ends once the wheel has been still for {@link WHEEL_END_MS}. */
  wheelZoom(factor, p) {
    this.controller.zoomAt(factor, p);
    clearTimeout(this.wheelTimer);
    this.wheelTimer = setTimeout(() => this.controller.endWheelZoom(performance.now()), WHEEL_END_MS);
  }
}
