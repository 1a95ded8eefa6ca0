// `<tiler-viewer>`'s physical size: the `micronsPerPixel` property (attribute `microns-per-pixel`) and the scale bar
// (boolean attribute `scalebar`, property `showsScaleBar`; off by default). The bar shows only when both are set.

/** The attributes handled here. */
export const SCALE_ATTRIBUTES = ['scalebar', 'microns-per-pixel'];

/** Adds the properties to the element class `Viewer` (whose instances have a `scaleBar` and `invalidate()`). */
export function installScaleProperties(Viewer) {
  Object.defineProperties(Viewer.prototype, {
    /** Microns per image pixel (the image's physical size), or `null` when unknown. */
    micronsPerPixel: {
      get() {
        return this.scaleSettings?.micronsPerPixel ?? null;
      },
      set(value) {
        const mpp = value === null || value === undefined || value === '' ? null : Number(value);
        if (mpp !== null && !(mpp > 0 && Number.isFinite(mpp))) throw new RangeError(`micronsPerPixel must be a positive number (got ${value})`);
        this.scaleSettings = { ...this.scaleSettings, micronsPerPixel: mpp };
        this.invalidate();
      },
      configurable: true,
    },
    /** Whether the scale bar is drawn (when `micronsPerPixel` is known). */
    showsScaleBar: {
      get() {
        return this.hasAttribute('scalebar');
      },
      set(value) {
        this.toggleAttribute('scalebar', Boolean(value));
      },
      configurable: true,
    },
  });
}

/** Handles a change of one of ``SCALE_ATTRIBUTES`` on `viewer`. */
export function scaleAttributeChanged(viewer, name, value) {
  if (name === 'microns-per-pixel') viewer.micronsPerPixel = value;
  else viewer.invalidate();
}

/** Draws `viewer`'s scale bar for its current zoom and insets. */
export function updateScaleBar(viewer) {
  viewer.scaleBar.update({
    enabled: viewer.hasAttribute('scalebar'), micronsPerPixel: viewer.micronsPerPixel, zoomScale: viewer.zoomScale,
    inset: viewer.contentInset,
  });
}
