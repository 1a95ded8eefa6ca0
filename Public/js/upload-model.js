// What the upload panel says, as pure functions of what happened: the image name a file is uploaded under, sizes in
// words, each way an upload can be refused (by its HTTP status, with the server's own reason) and each state of the
// slicing job, in sentences a person understands. No DOM, no network (tested in node).

/** What an image name may hold (as `tiler slice --name`): letters, digits, `-`, `_`, `.`, `+`; 1–200 of them. */
const NAME_CHARACTER = /[A-Za-z0-9._+-]/;
const NAME_LIMIT = 200;

/**
 * The image name for a file: its name without the extension, accents dropped, every other character the server
 * does not take in a name turned into `_`, no leading `.`, at most 200 characters; `image` if nothing is left.
 * @param {string} fileName e.g. `Café du Monde (2).JPG`
 * @returns {string} e.g. `Cafe_du_Monde__2_`
 */
export function uploadName(fileName) {
  const base = String(fileName).split(/[/\\]/).pop().replace(/\.[^.]*$/, '');
  const plain = base.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  let name = [...plain].map((c) => (NAME_CHARACTER.test(c) ? c : '_')).join('').slice(0, NAME_LIMIT);
  if (name.startsWith('.')) name = `_${name.slice(1)}`;
  return name || 'image';
}

/**
 * A byte count for people: `830 bytes`, `12.4 KB`, `181 MB`, `1.2 GB` (powers of 1000, as file managers show).
 * @param {number} bytes
 */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toPrecision(3).replace(/\.?0+$/, '')} ${units[unit]}`;
}

/**
 * Why an upload was refused, in words: from the answer's status and the server's `error` line.
 * @param {{status: number, detail?: string, name: string, fileName: string, size: number}} refusal `status` 0: no
 *   answer (the connection failed or broke off).
 * @returns {{message: string, canReplace: boolean}} `canReplace`: the name is taken, uploading again with
 *   `?replace=1` would replace that image.
 */
export function refusalMessage({ status, detail = '', name, fileName, size }) {
  const because = detail ? ` (the server says: ${detail})` : '';
  const quoted = `“${name}”`;
  switch (status) {
    case 0:
      return { message: `The upload of ${fileName} did not reach the server: the connection failed or broke off. Nothing was stored.`, canReplace: false };
    case 400:
      return { message: `The server refused the upload of ${fileName} as ${quoted}${detail ? `: ${detail}` : ': the name or the request was not acceptable'}. Nothing was stored.`, canReplace: false };
    case 401:
      return { message: `The server did not accept this page’s upload key: it may have expired. Open the page again from a fresh link${because}.`, canReplace: false };
    case 403:
      return { message: `This page’s key does not allow uploading ${quoted}${because}.`, canReplace: false };
    case 409:
      return { message: `There is already an image named ${quoted}, or one is being uploaded under that name. Replace it, or rename the file and drop it again.`, canReplace: true };
    case 411:
      return { message: `The server needs to know the file’s size before it arrives, and was not told it. Nothing was stored.`, canReplace: false };
    case 413:
      return { message: `${fileName} (${formatBytes(size)}) is too big for this server${because}. Nothing was stored.`, canReplace: false };
    case 415:
      return { message: `${fileName} is not an image this server can read (JPEG, PNG or TIFF, for instance). Nothing was stored.`, canReplace: false };
    case 507:
      return { message: `The server is out of disk space, so ${fileName} could not be stored.`, canReplace: false };
    default:
      return { message: `The server refused the upload of ${fileName}: HTTP ${status}${because}.`, canReplace: false };
  }
}

/** The job states after which nothing more happens. */
export const TERMINAL_STATES = new Set(['done', 'failed', 'cancelled', 'interrupted']);

/**
 * What the panel shows for a job (the server's JSON; see docs/drop-and-view.md).
 * @param {{state: string, fraction?: number, viewable?: boolean, error?: string | null, bytesReceived?: number,
 *   bytesExpected?: number | null}} job
 * @returns {{text: string, fraction: number | null, terminal: boolean, failed: boolean}} `fraction` of the whole
 *   job (0–1), `null` when unknown; `failed`: the image will not be there (say why, offer nothing more).
 */
export function jobSummary(job) {
  const fraction = Number.isFinite(job.fraction) ? Math.min(1, Math.max(0, job.fraction)) : null;
  const percent = fraction === null ? '' : ` ${Math.floor(fraction * 100)}%`;
  const terminal = TERMINAL_STATES.has(job.state);
  switch (job.state) {
    case 'receiving':
      return { text: `The server is receiving the file…${percent}`, fraction, terminal, failed: false };
    case 'queued':
      return { text: 'Waiting for the server to start slicing (another image is being sliced)…', fraction, terminal, failed: false };
    case 'slicing':
      return {
        text: job.viewable ? `Slicing:${percent} — open already, it sharpens as the levels are built` : `Slicing:${percent}`,
        fraction, terminal, failed: false,
      };
    case 'done':
      return { text: 'Ready: the image is complete.', fraction: 1, terminal, failed: false };
    case 'failed':
      return { text: `The image could not be sliced: ${job.error || 'the server gave no reason'}. Nothing was kept.`, fraction, terminal, failed: true };
    case 'cancelled':
      return { text: 'Cancelled. Nothing was kept.', fraction, terminal, failed: true };
    case 'interrupted':
      return { text: 'The server stopped before this image was finished, so nothing was kept. Upload it again.', fraction, terminal, failed: true };
    default:
      return { text: `The server says the job is “${job.state}”.`, fraction, terminal, failed: false };
  }
}

/**
 * The upload's own progress line (while the browser sends the file).
 * @param {number} sent Bytes sent.
 * @param {number} total Bytes in all.
 */
export function sendingSummary(sent, total) {
  const fraction = total > 0 ? Math.min(1, sent / total) : null;
  const percent = fraction === null ? '' : ` (${Math.floor(fraction * 100)}%)`;
  return { text: `Uploading: ${formatBytes(sent)} of ${formatBytes(total)}${percent}`, fraction };
}
