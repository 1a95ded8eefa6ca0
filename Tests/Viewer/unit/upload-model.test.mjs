// What the upload panel says (Public/js/upload-model.js): the name a file is uploaded under (checked against the
// server's rule for names), sizes, each refusal of the contract's statuses, and each job state, in words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, jobSummary, refusalMessage, sendingSummary, uploadName } from '../../../Public/js/upload-model.js';

/** The server's rule for a name without folders (`tiler slice --name`). */
const NAME_RULE = /^(?!\.)[A-Za-z0-9._+-]{1,200}$/;

test('a file name becomes an image name the server accepts: extension off, accents dropped, the rest as _', () => {
  const cases = {
    'alps.jpg': 'alps',
    'Café du Monde (2).JPG': 'Cafe_du_Monde__2_',
    'scan.v2.tiff': 'scan.v2',
    '.hidden.png': '_hidden',
    'C:\\photos\\trip/rome.jpeg': 'rome',
    '東京.png': '__',
    '.png': 'image',
    'no-extension': 'no-extension',
    'a+b_c-d.webp': 'a+b_c-d',
  };
  for (const [file, name] of Object.entries(cases)) {
    assert.equal(uploadName(file), name, file);
    assert.match(uploadName(file), NAME_RULE, file);
  }
  assert.equal(uploadName(`${'x'.repeat(300)}.jpg`).length, 200);
  assert.match(uploadName(`${'é'.repeat(300)}.jpg`), NAME_RULE);
});

test('sizes read as a file manager shows them', () => {
  assert.equal(formatBytes(0), '0 bytes');
  assert.equal(formatBytes(1), '1 byte');
  assert.equal(formatBytes(999), '999 bytes');
  assert.equal(formatBytes(1000), '1 KB');
  assert.equal(formatBytes(12_400), '12.4 KB');
  assert.equal(formatBytes(181_000_000), '181 MB');
  assert.equal(formatBytes(999_600), '1 MB');
  assert.equal(formatBytes(1_234_567_890), '1.23 GB');
});

test('every refusal of the contract is one sentence about the file or the name, with the server’s reason', () => {
  const base = { name: 'alps', fileName: 'alps.jpg', size: 181_000_000 };
  const said = (status, detail = '') => refusalMessage({ ...base, status, detail });
  assert.match(said(0).message, /did not reach the server.*Nothing was stored/);
  assert.equal(said(400, 'bad image name').message, 'The server refused the upload of alps.jpg as “alps”: bad image name. Nothing was stored.');
  assert.match(said(400).message, /the name or the request was not acceptable/);
  assert.match(said(401).message, /upload key.*expired/);
  assert.match(said(403, 'uploads are off: no --access keys').message, /does not allow uploading “alps” \(the server says: uploads are off: no --access keys\)/);
  assert.deepEqual(said(409), { message: said(409).message, canReplace: true });
  assert.match(said(409).message, /already an image named “alps”/);
  assert.match(said(411).message, /size/);
  assert.match(said(413, 'over --max-upload-mb 100').message, /^alps\.jpg \(181 MB\) is too big for this server \(the server says: over --max-upload-mb 100\)/);
  assert.match(said(415).message, /alps\.jpg is not an image this server can read/);
  assert.match(said(507).message, /out of disk space/);
  assert.match(said(500, 'boom').message, /HTTP 500 \(the server says: boom\)/);
  for (const status of [0, 400, 401, 403, 411, 413, 415, 507, 500]) {
    assert.equal(said(status).canReplace, false, String(status));
    assert.ok(!said(status).message.includes('\n'), String(status));
  }
});

test('each job state reads as what the server is doing, failures with the job’s own error', () => {
  const job = (state, extra = {}) => jobSummary({ state, fraction: 0.375, viewable: false, error: null, ...extra });
  assert.deepEqual(job('receiving'), { text: 'The server is receiving the file… 37%', fraction: 0.375, terminal: false, failed: false });
  assert.match(job('queued').text, /Waiting/);
  assert.equal(job('slicing').text, 'Slicing: 37%');
  assert.match(job('slicing', { viewable: true }).text, /^Slicing: 37% — open already/);
  assert.deepEqual(job('done'), { text: 'Ready: the image is complete.', fraction: 1, terminal: true, failed: false });
  const failed = job('failed', { error: 'JPEG: Premature end of JPEG file' });
  assert.equal(failed.text, 'The image could not be sliced: JPEG: Premature end of JPEG file. Nothing was kept.');
  assert.ok(failed.terminal && failed.failed);
  assert.ok(job('cancelled').failed && job('cancelled').terminal);
  assert.match(job('interrupted').text, /server stopped.*Upload it again/);
  assert.equal(jobSummary({ state: 'slicing' }).fraction, null);
  assert.equal(jobSummary({ state: 'slicing', fraction: 1.5 }).fraction, 1);
});

test('the upload’s own line counts bytes sent', () => {
  assert.deepEqual(sendingSummary(5_000_000, 20_000_000), { text: 'Uploading: 5 MB of 20 MB (25%)', fraction: 0.25 });
  assert.equal(sendingSummary(0, 0).fraction, null);
});
