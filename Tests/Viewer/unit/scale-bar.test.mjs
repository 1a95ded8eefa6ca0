// The scale bar's length: the longest round length (1, 2, 5 × 10ⁿ µm) within the most points, over every decade.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scaleBarLength, SCALE_BAR_MAX_POINTS } from '../../../Public/js/scale-bar.js';

test('the bar is a round length between 40 % and 100 % of the most points, at every zoom', () => {
  for (const mpp of [0.1, 0.2431, 0.499, 1, 352.86]) {
    for (let exponent = -6; exponent <= 3; exponent += 0.05) {
      const zoom = 10 ** exponent;
      const bar = scaleBarLength(mpp, zoom);
      assert.ok(bar.points <= SCALE_BAR_MAX_POINTS + 1e-9 && bar.points >= 0.4 * SCALE_BAR_MAX_POINTS - 1e-9, `${mpp} ${zoom}: ${bar.points}`);
      const mantissa = bar.microns / 10 ** Math.floor(Math.log10(bar.microns) + 1e-9);
      assert.ok([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9), `${bar.microns} is not 1, 2 or 5 × 10ⁿ`);
      assert.ok(Math.abs(bar.points - (bar.microns * zoom) / mpp) < 1e-6);
    }
  }
});

test('labels in µm, mm and m, and in words', () => {
  assert.deepEqual([scaleBarLength(0.5, 1).label, scaleBarLength(0.5, 1).words], ['50 µm', '50 micrometres']);
  assert.equal(scaleBarLength(0.5, 0.01).label, '5 mm');
  assert.equal(scaleBarLength(1, 1e-5).words, '10 metres');
  assert.equal(scaleBarLength(1, 120).words, '1 micrometre');
  assert.equal(scaleBarLength(0.25, 1000).label, '0.02 µm');
});

test('no bar without a physical size or a zoom', () => {
  for (const [mpp, zoom] of [[null, 1], [0, 1], [-1, 1], [0.5, 0], [NaN, 1], [0.5, Infinity]]) assert.equal(scaleBarLength(mpp, zoom), null);
});
