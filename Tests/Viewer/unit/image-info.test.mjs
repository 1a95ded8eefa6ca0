// ImageInfo, an element of `GET /api/images`: its tile URLs (a thumbnail among them) carry a private image's signed
// tile query when the list gives one, and are plain otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImageInfo } from '../../../Public/js/api.js';

const entry = {
  name: 'slides/a b', width: 600, height: 400, tileSize: 256, overlap: 0, format: 'jpg', maxLevel: 10,
  dzi: '/images/slides/a%20b@0123456789ab.dzi',
};

test('a public image has plain tile URLs', () => {
  const info = new ImageInfo(entry);
  assert.equal(info.tileQuery, null);
  assert.equal(info.tileURL(9, 1, 0), '/images/slides/a%20b@0123456789ab_files/9/1_0.jpg');
});

test('a private image listed to a token that grants it has signed tile URLs, its thumbnail too', () => {
  const info = new ImageInfo({ ...entry, tileQuery: 'sig=AAAAAAAAAAAAAAAAAAAAAA' });
  assert.equal(info.tileURL(9, 1, 0), '/images/slides/a%20b@0123456789ab_files/9/1_0.jpg?sig=AAAAAAAAAAAAAAAAAAAAAA');
  assert.ok(info.thumbnailURL.endsWith('?sig=AAAAAAAAAAAAAAAAAAAAAA'));
});
