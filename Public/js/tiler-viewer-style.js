// The element's shadow styles: the stage fills the host's box; indicators (in UIKit's three styles) and the navigator
// float over it. The host and stage take no touch gestures of the browser's (see PAGE_PANS_STYLE for the exception).

export const STYLE = `
:host { display: block; position: relative; overflow: hidden; contain: strict; background: #17181b; outline: none;
  touch-action: none; user-select: none; -webkit-user-select: none; min-height: 60px; }
:host(:focus-visible) { box-shadow: inset 0 0 0 2px rgba(90, 169, 255, 0.7); }
.stage { position: absolute; inset: 0; cursor: grab; overflow: hidden; touch-action: none; }
.stage:active { cursor: grabbing; }
.stage canvas { display: block; }
.indicator { position: absolute; border-radius: 2px; background: rgba(0, 0, 0, 0.45); box-shadow: 0 0 0 1px rgba(255, 255, 255, 0.35);
  opacity: 0; transition: opacity 0.3s; pointer-events: none; }
.indicator.black { background: rgba(0, 0, 0, 0.55); box-shadow: none; }
.indicator.white { background: rgba(255, 255, 255, 0.7); box-shadow: none; }
.navigator { position: absolute; right: 12px; bottom: 12px; overflow: hidden; border-radius: 8px;
  border: 1px solid rgba(255, 255, 255, 0.22); background: #000; box-shadow: 0 6px 24px rgba(0, 0, 0, 0.45);
  touch-action: none; cursor: pointer; }
.navigator:focus-visible { outline: 2px solid #5aa9ff; outline-offset: 2px; }
.navigator-image { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.navigator canvas { display: block; width: 100%; height: 100%; }
.navigator-viewport { position: absolute; box-sizing: border-box; border: 2px solid #5aa9ff; border-radius: 2px;
  box-shadow: 0 0 0 9999px rgba(0, 0, 0, 0.38); pointer-events: none; }
`;

/** With `panMinimumTouches` 2: one finger pans the page past the element (the browser scrolls it), two go to the element. */
export const PAGE_PANS_STYLE = ':host, .stage { touch-action: pan-x pan-y; }';
