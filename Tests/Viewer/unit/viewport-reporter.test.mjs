// The pure parts of the viewport loop: which answer belongs to the view on screen, and loading in the server's order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orderedLike, viewKey } from '../../../Public/js/viewport-reporter.js';

test('an answer belongs to a view up to 1/100 point', () => {
  const view = { x: 10.001, y: -5, width: 800, height: 600, zoomScale: 0.5, contentScale: 2 };
  assert.equal(viewKey(view), viewKey({ ...view, x: 10.004 }));
  assert.notEqual(viewKey(view), viewKey({ ...view, x: 10.02 }));
  assert.notEqual(viewKey(view), viewKey({ ...view, contentScale: 1 }));
});

test("tiles load in the server's order, the overview first and unlisted tiles last", () => {
  const r = (name) => ({ key: name, url: `http://h/${name}` });
  const local = [r('overview'), r('a'), r('b'), r('c'), r('d')];
  const ordered = orderedLike(local, ['http://h/c', 'http://h/a', 'http://h/zz']);
  assert.deepEqual(ordered.map((x) => x.key), ['overview', 'c', 'a', 'b', 'd']);
});
