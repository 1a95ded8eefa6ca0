// Drop an image on the app page (or pick one with the Upload button) and see it at once: with a write token, the
// file is PUT to `/api/images/NAME` (NAME from the file name), its bytes' progress shown, then the slicing job's
// (its event stream); the image opens as soon as the job says it is viewable, and a Cancel button stops the upload
// or the job. Every refusal and failure is shown in words (upload-model.js). Without a token the page says so while
// a file is dragged over it, before it is dropped (and a drop then changes nothing). The app moves an open image to its final version when the job is done (app.js).

import { UploadPanel } from './upload-panel.js';
import { jobSummary, refusalMessage, sendingSummary, uploadName } from './upload-model.js';
import { cancelJob, putImage, watchJob } from './upload-client.js';

/** What a person is told when this page may not upload (no write token), in their words. */
export const NEEDS_TOKEN = 'Uploading needs permission: open this page from the upload link you were given (it ends in #write-token=…).';

/**
 * The page's uploads: one at a time.
 */
export class Uploads {
  /**
   * @param {HTMLElement} parent The page's body.
   * @param {{token: string, openImage: (name: string) => void}} options `openImage` shows image NAME (once viewable).
   */
  constructor(parent, { token, openImage }) {
    this.openImage = openImage;
    this.panel = new UploadPanel(parent, { onFile: (file) => this.start(file), onCancel: () => this.cancel() });
    /** The upload under way (or the last one): `{file, name, put, job, stop, opened, over}`. */
    this.current = null;
    this.token = token;
    this.listen(parent.ownerDocument.defaultView);
  }

  /** The write token ('' for none): without one there is no Upload button and a drop only says why. */
  get token() {
    return this.writeToken;
  }

  set token(value) {
    this.writeToken = value ?? '';
    this.panel.button.hidden = !this.writeToken;
  }

  /** Whether an upload of image `name` is under way (the image list may not show it yet). */
  expects(name) {
    return this.current?.name === name && !this.current.over;
  }

  /** Page-wide drag and drop of files. */
  listen(window) {
    let depth = 0;
    const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
    window.addEventListener('dragenter', (e) => {
      if (!hasFiles(e)) return;
      depth += 1;
      this.panel.dropping(true, Boolean(this.token));
    });
    window.addEventListener('dragleave', (e) => {
      if (hasFiles(e) && --depth <= 0) {
        depth = 0;
        this.panel.dropping(false);
      }
    });
    window.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault(); // Else the browser would open the file in place of the page.
      e.dataTransfer.dropEffect = this.token ? 'copy' : 'none';
    });
    window.addEventListener('drop', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      this.panel.dropping(false);
      const files = [...e.dataTransfer.files];
      if (files.length > 0) this.start(files[0], false, files.length);
    });
  }

  /**
   * Uploads `file` (as `uploadName(file.name)`; `replace`: over an image of that name).
   * @param {File} file
   * @param {boolean} [replace]
   * @param {number} [count] How many files were dropped (only the first is taken).
   */
  async start(file, replace = false, count = 1) {
    if (!this.token) {
      this.panel.note(NEEDS_TOKEN);
      return;
    }
    if (this.current && !this.current.over) {
      this.panel.note(`One upload at a time: ${this.current.file.name} is still on its way (cancel it first).`);
      return;
    }
    const name = uploadName(file.name);
    const upload = { file, name, put: null, job: null, stop: null, opened: false, over: false };
    this.current = upload;
    this.panel.begin({ name, fileName: file.name, size: file.size });
    if (count > 1) this.panel.show({ text: `One file at a time: uploading ${file.name} only.`, fraction: 0 }, { cancel: true });
    upload.put = putImage({
      name, file, token: this.token, replace,
      onProgress: (sent, total) => {
        if (upload.put) this.panel.show(sendingSummary(sent, total), { cancel: true });
      },
    });
    const answer = await upload.put.done;
    upload.put = null;
    if (upload.over) return;
    if (answer.aborted) return this.end(upload, () => this.panel.fail('Cancelled. Nothing was stored.'));
    if (!answer.job) {
      const refusal = refusalMessage({ status: answer.status, detail: answer.detail, name, fileName: file.name, size: file.size });
      return this.end(upload, () => this.panel.fail(refusal.message, refusal.canReplace ? () => this.start(file, true) : null));
    }
    this.jobChanged(upload, answer.job);
    if (!upload.over) {
      upload.stop = watchJob(answer.job.id, {
        onJob: (job) => this.jobChanged(upload, job),
        onLost: (error) => this.end(upload, () => this.panel.fail(`Lost track of the slicing: ${error.message}`)),
      });
    }
  }

  /** A new state of `upload`'s job: the panel follows it; the image opens once viewable. */
  jobChanged(upload, job) {
    if (upload.over) return;
    upload.job = job;
    const summary = jobSummary(job);
    if ((job.viewable || job.state === 'done') && !upload.opened) {
      upload.opened = true;
      this.openImage(upload.name);
    }
    if (summary.failed) this.end(upload, () => this.panel.fail(summary.text));
    else if (summary.terminal) this.end(upload, () => this.panel.finish(summary.text));
    else this.panel.show(summary, { cancel: true });
  }

  /** Cancel: aborts the PUT while it is sending, else asks the server to cancel the job. */
  async cancel() {
    const upload = this.current;
    if (!upload || upload.over) return;
    if (upload.put) return upload.put.abort();
    if (!upload.job) return;
    this.panel.show({ text: 'Cancelling…', fraction: null });
    try {
      this.jobChanged(upload, await cancelJob(upload.job.id, this.token));
    } catch (error) {
      this.panel.show({ text: `Could not cancel: ${error.message}`, fraction: null }, { cancel: true });
    }
  }

  /** Ends `upload`: stops following its job and lets `show` say how it ended. */
  end(upload, show) {
    if (upload.over) return;
    upload.over = true;
    upload.stop?.();
    if (this.current === upload) show();
  }
}
