// A `<tiler-viewer>`'s token state (Public/js/viewer-access.js) on a stand-in element: `tokenexpired` fires once per
// refused token, a new token reopens a refused image or refreshes an open one's signed URLs, and a tile refused
// with 401 refreshes them without the page. (The element itself, in Chromium: Tests/Viewer/browser/test_private.py.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ViewerAccess } from '../../../Public/js/viewer-access.js';

// Debian 12's Node 18 has EventTarget and Event but not the browser's CustomEvent (Node 19 added it).
globalThis.CustomEvent ??= class CustomEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.detail = init.detail ?? null;
  }
};

/** An object with what ViewerAccess uses of the element. */
function element({ source = null, connected = true } = {}) {
  const target = new EventTarget();
  const fired = [];
  target.addEventListener('tokenexpired', (event) => fired.push(event.detail));
  return Object.assign(target, {
    isConnected: connected, source, src: '/images/secret/pic.dzi', loading: false, opened: [], fired, retried: 0, drawn: 0,
    open(src) { this.opened.push(src); },
    loader: { retry() { target.retried += 1; } },
    invalidate() { this.drawn += 1; },
  });
}

test('tokenexpired fires once per refused token, and again for a new token refused', () => {
  const e = element();
  const access = new ViewerAccess(e);
  access.refuse('t1');
  access.refuse('t1');
  assert.equal(e.fired.length, 1);
  assert.deepEqual(e.fired[0], { src: '/images/secret/pic.dzi' });
  access.setToken('t2');
  access.refuse('t2');
  assert.equal(e.fired.length, 2);
});

test('a token set while no image is open opens src; the same token again does nothing', () => {
  const e = element();
  const access = new ViewerAccess(e);
  access.setToken('t1');
  assert.deepEqual(e.opened, ['/images/secret/pic.dzi']);
  access.setToken('t1');
  assert.equal(e.opened.length, 1);
  assert.equal(access.token, 't1');
  const detached = element({ connected: false });
  new ViewerAccess(detached).setToken('t1');
  assert.deepEqual(detached.opened, [], 'a detached element opens when connected, not now');
});

test('only a 401 on a private image’s tile asks for fresh signed URLs', () => {
  const open = element({ source: { tileQuery: '' } });
  const access = new ViewerAccess(open);
  let refreshed = 0;
  access.refresh = async () => { refreshed += 1; };
  access.tileFailed({ status: 401 });
  assert.equal(refreshed, 0, 'a public image: nothing to refresh');
  open.source = { tileQuery: 'sig=s' };
  access.tileFailed({ status: 404 });
  access.tileFailed(new Error('decode'));
  assert.equal(refreshed, 0);
  access.tileFailed({ status: 401 });
  assert.equal(refreshed, 1);
});
