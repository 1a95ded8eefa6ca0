// Keys for the viewer: arrows pan, Home scrolls to the top (UIKit's status-bar tap), + and − zoom around the centre,
// 0 fits the whole image; the element adds its own (rotate, flip, full screen, `?` for the help: `extra`). The keys that scroll do nothing while `isScrollEnabled` is false; the zoom keys still zoom,
// as a pinch does in UIKit.

/** Arrow keys move the view by this fraction of the viewport. */
const ARROW_STEP = 0.15;

/**
 * Handles key presses on `target` for `controller` while `isActive()`; ignores keys typed into form fields and
 * keys with Ctrl, Alt or Meta (those belong to the browser, e.g. page zoom).
 * @param {EventTarget} target
 * @param {import('./scroll-controller.js').ScrollController} controller
 * @param {() => boolean} isActive
 * @param {{scrollToTop?: () => void, extra?: Record<string, () => void>}} [hooks] What Home does (the element's
 *   `scrollToTop()`, which asks the delegate), and more keys (by `KeyboardEvent.key`) and what they do.
 * @returns {() => void} Stops listening.
 */
export function attachKeyboard(target, controller, isActive, { scrollToTop = () => {}, extra = {} } = {}) {
  const listener = (e) => {
    if (!isActive() || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.target instanceof HTMLElement && e.target.closest('input, textarea, select, [contenteditable]')) return;
    const sv = controller.scrollView;
    const dx = Math.round(sv.viewportSize.width * ARROW_STEP);
    const dy = Math.round(sv.viewportSize.height * ARROW_STEP);
    const t = e.timeStamp;
    const actions = {
      ArrowLeft: () => controller.panBy(-dx, 0, t),
      ArrowRight: () => controller.panBy(dx, 0, t),
      ArrowUp: () => controller.panBy(0, -dy, t),
      ArrowDown: () => controller.panBy(0, dy, t),
      Home: scrollToTop,
      '+': () => controller.zoomBy(2, sv.centre, t),
      '=': () => controller.zoomBy(2, sv.centre, t),
      '-': () => controller.zoomBy(0.5, sv.centre, t),
      _: () => controller.zoomBy(0.5, sv.centre, t),
      0: () => controller.fit(t),
      ...extra,
    };
    const action = Object.hasOwn(actions, e.key) ? actions[e.key] : null;
    if (!action) return;
    e.preventDefault();
    action();
  };
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}
