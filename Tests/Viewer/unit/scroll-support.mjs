// Shared helpers of the controller's delegate tests: a recording controller over a 3000×2000 image, animations run to
// their end, drags with timestamps, and the recorded sequence with its runs of didScroll/didZoom collapsed.

import { ScrollView } from '../../../Public/js/scroll-view.js';
import { ScrollController } from '../../../Public/js/scroll-controller.js';

/** A 3000×2000 image in an 800×600 box at zoom 1, offset (1000, 700), recording every moment. */
export function setup(options = {}) {
  const sv = new ScrollView({ contentSize: { width: 3000, height: 2000 }, viewportSize: { width: 800, height: 600 } });
  const log = [];
  const controller = new ScrollController(sv, {
    emit: (name, detail) => {
      log.push(name === 'didEndDragging' ? `${name}(${detail.willDecelerate})` : name);
      options.onEmit?.(name, detail);
    },
  });
  controller.setView({ zoomScale: 1, x: 1000, y: 700 });
  log.length = 0;
  return { sv, controller, log };
}

/** Runs the animation to its end from time `t`, 16 ms per frame. */
export function finish(controller, t) {
  let now = t;
  while (controller.step(now)) now += 16;
  return now;
}

/** The log with runs of didScroll/didZoom collapsed into one `move`. */
export function collapsed(log) {
  const out = [];
  for (const name of log) {
    const n = name === 'didScroll' || name === 'didZoom' ? 'move' : name;
    if (n !== 'move' || out[out.length - 1] !== 'move') out.push(n);
  }
  return out;
}

/** A drag from (400, 300) by (dx, dy) per 10 ms for `steps` steps, lifting at `liftAt` ms after the last move. */
export function drag(controller, dx, dy, { steps = 10, slop = 4, liftAt = 5 } = {}) {
  controller.beginPan({ x: 400, y: 300 }, 0, slop);
  for (let i = 1; i <= steps; i += 1) controller.pan({ x: 400 + dx * i, y: 300 + dy * i }, i * 10);
  controller.endPan(steps * 10 + liftAt);
  return steps * 10 + liftAt;
}

/** A flick's delegate sequence, runs of moves collapsed. */
export const FLICK = ['willBeginDragging', 'move', 'willEndDragging', 'didEndDragging(true)', 'willBeginDecelerating', 'move', 'didEndDecelerating'];
