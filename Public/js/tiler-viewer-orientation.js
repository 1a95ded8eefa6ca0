// `<tiler-viewer>` turned and mirrored, and full screen (not UIKit: OpenSeadragon's rotate and flip, which people
// viewing slides and scans expect): the `rotation` property (attribute `rotation`: 0, 90, 180 or 270 degrees
// clockwise) and `flipped` (boolean attribute `flipped`: left and right swapped), `rotate(degrees)`, `flip()` and
// `toggleFullscreen()`. The scroll view's content becomes the image as shown; the tiles, the navigator and the
// viewport reports keep to the image as stored (see orientation.js), so the server is told the part of the image
// actually on screen.

import { UPRIGHT, normalRotation, rectToShown, shownSize, storedView, toShown, toStored } from './orientation.js';

/** The attributes handled here. */
export const ORIENTATION_ATTRIBUTES = ['rotation', 'flipped'];

/** Adds the properties and methods to the element class `Viewer`. */
export function installOrientation(Viewer) {
  Object.defineProperties(Viewer.prototype, {
    /** How the image is shown: `{rotation, flipped}`. */
    orientation: {
      get() {
        return this.orientationSetting ?? UPRIGHT;
      },
      configurable: true,
    },
    /** Degrees clockwise: 0, 90, 180 or 270 (any multiple of 90 is taken modulo 360). */
    rotation: {
      get() {
        return this.orientation.rotation;
      },
      set(value) {
        setOrientation(this, { ...this.orientation, rotation: normalRotation(value) });
      },
      configurable: true,
    },
    /** Whether the image is shown mirrored (left and right swapped, after the rotation). */
    flipped: {
      get() {
        return this.orientation.flipped;
      },
      set(value) {
        setOrientation(this, { ...this.orientation, flipped: Boolean(value) });
      },
      configurable: true,
    },
  });
  Object.assign(Viewer.prototype, {
    /** Turns the image by `degrees` (a multiple of 90; positive: clockwise) about the centre of the view. */
    rotate(degrees = 90) {
      this.rotation = this.rotation + normalRotation(degrees);
    },
    /** Mirrors the image (left and right swap on screen). */
    flip() {
      this.flipped = !this.flipped;
    },
    /**
     * Shows the element alone on the whole screen, or leaves full screen. A refusal (no user gesture, a frame without
     * `allowfullscreen`) is a warning, not an error. @returns {Promise<void>}
     */
    async toggleFullscreen() {
      try {
        if (document.fullscreenElement) await document.exitFullscreen();
        else await this.requestFullscreen?.({ navigationUI: 'hide' });
      } catch (error) {
        console.warn(`tiler-viewer: full screen was refused (${error.message})`);
      }
    },
    /** The scroll view's state seen on the image as stored (what tiles, navigator and reports work on). */
    storedView() {
      return storedView(this.scrollView, this.orientation, this.source.pyramid);
    },
    /** An image point as stored (pixels) to where it is in the scroll view's content. */
    shownPoint(p) {
      return toShown(p, this.orientation, this.source.pyramid);
    },
    /** A rectangle of the image as stored (`{x, y, width, height}`) as it is shown. */
    shownRect(r) {
      return rectToShown(r, this.orientation, this.source.pyramid);
    },
  });
}

/** Handles a change of one of {@link ORIENTATION_ATTRIBUTES}. */
export function orientationAttributeChanged(viewer, name, value) {
  if (name === 'rotation') viewer.rotation = value === null || value === '' ? 0 : value;
  else viewer.flipped = value !== null && value !== 'false';
}

/**
 * Shows `viewer`'s image in orientation `o`, keeping the image point at the centre of the view and the zoom (a fitted
 * view stays fitted).
 */
export function setOrientation(viewer, o) {
  const old = viewer.orientation;
  if (old.rotation === o.rotation && old.flipped === o.flipped) return;
  viewer.orientationSetting = Object.freeze({ rotation: o.rotation, flipped: o.flipped });
  applyOrientation(viewer, old);
  viewer.controls?.update();
  viewer.dispatchEvent(new CustomEvent('orientationchange', { detail: { rotation: o.rotation, flipped: o.flipped } }));
}

/** Pushes the element's orientation into its scroll view, tile layer and navigator (`old`: the one shown until now). */
export function applyOrientation(viewer, old = UPRIGHT) {
  const sv = viewer.scrollView;
  if (!sv) return;
  const o = viewer.orientation;
  const size = viewer.source.pyramid;
  viewer.controller.stop();
  const wasFit = sv.zoomScale <= sv.minimumZoomScale;
  const centre = toShown(toStored(sv.imagePointAt(sv.centre), old, size), o, size);
  sv.contentSize = shownSize(size, o);
  sv.applyLimits(sv.viewportSize, sv.devicePixelRatio, wasFit, centre);
  viewer.layer.orientation = o;
  viewer.navigator?.setOrientation(o);
  viewer.changed();
  viewer.emit('didScroll');
}
