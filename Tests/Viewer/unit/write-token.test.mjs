// The app page's write token (Public/js/write-token.js): taken out of the hash (both spellings), the rest of the
// hash kept, stored for the tab, and removed from the address; an empty one forgets a stored token.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STORAGE_KEY, rememberWriteToken, takeWriteToken } from '../../../Public/js/write-token.js';

test('the token leaves the hash and the rest stays as it was', () => {
  assert.deepEqual(takeWriteToken('#write-token=tiler1.k.c.s'), { token: 'tiler1.k.c.s', hash: '' });
  assert.deepEqual(takeWriteToken('#image=a&write-token=T&zoom=1'), { token: 'T', hash: '#image=a&zoom=1' });
  assert.deepEqual(takeWriteToken('writeToken=T'), { token: 'T', hash: '' });
  assert.deepEqual(takeWriteToken('#image=a'), { token: null, hash: '#image=a' });
  assert.deepEqual(takeWriteToken(''), { token: null, hash: '' });
});

/** Plain stand-ins for the page's location, history and sessionStorage. */
function page(hash) {
  const items = new Map();
  const storage = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, v), removeItem: (k) => items.delete(k) };
  const location = { pathname: '/', search: '?cache=50', hash };
  const replaced = [];
  const history = { state: null, replaceState: (_state, _title, url) => replaced.push(url) };
  return { storage, location, history, replaced, items };
}

test('a token in the link is stored for the tab and taken out of the address; later loads find it stored', () => {
  const p = page('#image=alps&write-token=T1');
  assert.equal(rememberWriteToken(p.location, p.history, p.storage), 'T1');
  assert.deepEqual(p.replaced, ['/?cache=50#image=alps']);
  assert.equal(p.items.get(STORAGE_KEY), 'T1');
  const later = { ...p, location: { ...p.location, hash: '#image=alps' }, replaced: [] };
  assert.equal(rememberWriteToken(later.location, later.history, p.storage), 'T1');
  const forget = page('#write-token=');
  forget.items.set(STORAGE_KEY, 'old');
  assert.equal(rememberWriteToken(forget.location, forget.history, forget.storage), '');
  assert.equal(forget.items.has(STORAGE_KEY), false);
  assert.equal(rememberWriteToken(page('').location, page('').history, null), '', 'no storage, no token: none');
});
