// The app page's read token (Public/js/read-token.js): taken out of the query or the hash (the hash's first), the rest
// kept, stored for the tab, removed from the address; an empty one forgets a stored token.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STORAGE_KEY, rememberReadToken, takeReadToken } from '../../../Public/js/read-token.js';

test('the token leaves the query and the hash, the rest stays', () => {
  assert.deepEqual(takeReadToken('?token=A&cache=50', '#image=x'), { token: 'A', search: '?cache=50', hash: '#image=x' });
  assert.deepEqual(takeReadToken('?token=A', '#token=B&image=y'), { token: 'B', search: '', hash: '#image=y' });
  assert.deepEqual(takeReadToken('', '#read-token=C'), { token: 'C', search: '', hash: '' });
  assert.deepEqual(takeReadToken('?cache=5', '#image=z&write-token=W'), { token: null, search: '?cache=5', hash: '#image=z&write-token=W' });
});

test('a token in the link is stored and taken out of the address; later loads find it stored; empty forgets', () => {
  const items = new Map();
  const storage = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, v), removeItem: (k) => items.delete(k) };
  const replaced = [];
  const history = { state: null, replaceState: (_s, _t, url) => replaced.push(url) };
  assert.deepEqual(rememberReadToken({ pathname: '/', search: '?token=T', hash: '#image=a' }, history, storage), { token: 'T', fromLink: true });
  assert.deepEqual(replaced, ['/#image=a']);
  assert.equal(items.get(STORAGE_KEY), 'T');
  assert.deepEqual(rememberReadToken({ pathname: '/', search: '', hash: '#image=a' }, history, storage), { token: 'T', fromLink: false });
  assert.deepEqual(rememberReadToken({ pathname: '/', search: '', hash: '#token=' }, history, storage), { token: '', fromLink: true });
  assert.equal(items.has(STORAGE_KEY), false);
});
