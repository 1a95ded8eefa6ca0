// The upload's three conversations with `tiler serve`: the PUT of the file (by XMLHttpRequest, the one browser API
// that reports a request body's progress), the job's Server-Sent Events (EventSource, which cannot send headers:
// the job's unguessable id is its capability) and the DELETE that cancels a job (with the write token). The
// contract is docs/drop-and-view.md.

import { encodeName } from './api.js';
import { request } from './http.js';
import { TERMINAL_STATES } from './upload-model.js';

/**
 * @typedef {{status: number, job: any, detail: string, aborted: boolean}} PutAnswer `status` 0: no answer;
 *   `job`: the 202's JOB; `detail`: the server's `error` line on a refusal; `aborted`: cancelled by `abort()`.
 */

/**
 * PUTs `file` as image `name` with the write token as the bearer.
 * @param {{name: string, file: Blob, token: string, replace?: boolean, onProgress: (sent: number, total: number) => void}} upload
 * @returns {{done: Promise<PutAnswer>, abort: () => void}} `done` never rejects.
 */
export function putImage({ name, file, token, replace = false, onProgress }) {
  const xhr = new XMLHttpRequest();
  const done = new Promise((resolve) => {
    const answer = (fields) => resolve({ status: 0, job: null, detail: '', aborted: false, ...fields });
    xhr.upload.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.addEventListener('load', () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // Not JSON (a proxy's page): the status says enough.
      }
      const ok = xhr.status === 202 && typeof body?.id === 'string';
      answer({ status: xhr.status, job: ok ? body : null, detail: typeof body?.error === 'string' ? body.error : '' });
    });
    xhr.addEventListener('error', () => answer({}));
    xhr.addEventListener('abort', () => answer({ aborted: true }));
  });
  xhr.open('PUT', `/api/images/${encodeName(name)}${replace ? '?replace=1' : ''}`);
  xhr.setRequestHeader('Authorization', `Bearer ${token}`);
  xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
  xhr.send(file);
  return { done, abort: () => xhr.abort() };
}

/** The id of a job from its path (`/api/jobs/ID`) or the id itself. */
export function jobId(pathOrId) {
  return String(pathOrId).split('/').filter(Boolean).pop() ?? '';
}

/**
 * Follows job `id`'s events until a terminal state (then the stream is closed). A stream that breaks is reopened by
 * the browser (the server sends the current state first); one the server refuses (an unknown job) is read once as
 * `GET /api/jobs/ID` instead, and `onLost` hears why if that fails too.
 * @param {string} id
 * @param {{onJob: (job: any) => void, onLost?: (error: Error) => void}} handlers
 * @returns {() => void} Stops following.
 */
export function watchJob(id, { onJob, onLost = () => {} }) {
  const url = `/api/jobs/${encodeURIComponent(id)}`;
  const source = new EventSource(`${url}/events`);
  let stopped = false;
  const stop = () => {
    stopped = true;
    source.close();
  };
  source.addEventListener('job', (event) => {
    if (stopped) return;
    let job;
    try {
      job = JSON.parse(event.data);
    } catch {
      return; // A line the server would never send: the next event says the state again.
    }
    if (TERMINAL_STATES.has(job.state)) stop();
    onJob(job);
  });
  source.addEventListener('error', () => {
    if (stopped || source.readyState !== EventSource.CLOSED) return;
    stop();
    request(url, { what: 'the slicing job' }).then(({ body }) => onJob(body), onLost);
  });
  return stop;
}

/**
 * Cancels job `id` (`DELETE /api/jobs/ID` with the write token).
 * @returns {Promise<any>} The job as the server then has it (`cancelled`, or the terminal state it had reached).
 * @throws {import('./http.js').HttpError}
 */
export async function cancelJob(id, token) {
  const remove = (url, init) => fetch(url, { ...init, method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  const { body } = await request(`/api/jobs/${encodeURIComponent(id)}`, { what: 'cancelling the job', fetch: remove });
  return body;
}
