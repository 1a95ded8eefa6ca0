// The upload's chrome: a panel in the bottom-left corner (the image's name and file, a progress bar, one line of
// state read out to screen readers, Cancel / Replace / Close), the page-wide "drop to upload" overlay, and the
// Upload button with its file input. DOM only; what to say comes from upload-model.js.

import { formatBytes } from './upload-model.js';

/** The overlay's words when the page may not upload (the same as the panel's note, uploads.js). */
const NEEDS_TOKEN_TEXT = 'Uploading needs permission: open this page from the upload link you were given (it ends in #write-token=…).';

/** Creates an element with a class and optional text. */
function element(tag, className, text = '') {
  const node = document.createElement(tag);
  node.className = className;
  if (text) node.textContent = text;
  return node;
}

/** A button of `className` saying `text` that runs `action`. */
function button(className, text, action) {
  const b = element('button', className, text);
  b.type = 'button';
  b.addEventListener('click', action);
  return b;
}

/**
 * The panel, the overlay and the button, in `parent` (the page's body).
 */
export class UploadPanel {
  /**
   * @param {HTMLElement} parent
   * @param {{onFile: (file: File) => void, onCancel: () => void}} actions
   */
  constructor(parent, { onFile, onCancel }) {
    this.root = element('section', 'upload-panel');
    this.root.setAttribute('aria-label', 'Upload');
    this.root.hidden = true;
    const head = element('div', 'upload-head');
    this.name = element('span', 'upload-name');
    this.file = element('span', 'upload-file');
    head.append(this.name, this.file);
    this.bar = element('progress', 'upload-progress');
    this.bar.max = 1;
    this.status = element('p', 'upload-status');
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-live', 'polite');
    this.cancel = button('retry upload-cancel', 'Cancel', onCancel);
    this.replace = button('retry upload-replace', 'Replace it', () => this.onReplace?.());
    this.close = button('retry upload-close', 'Close', () => this.hide());
    const actions = element('div', 'upload-actions');
    actions.append(this.replace, this.cancel, this.close);
    this.root.append(head, this.bar, this.status, actions);

    this.overlay = element('div', 'drop-overlay');
    this.overlay.hidden = true;
    this.overlayText = element('p', '', 'Drop the image to upload it');
    this.overlay.append(this.overlayText);

    this.input = element('input', 'upload-input');
    this.input.type = 'file';
    this.input.accept = 'image/*,.tif,.tiff,.svs,.ndpi';
    this.input.hidden = true;
    this.input.addEventListener('change', () => {
      const file = this.input.files?.[0];
      this.input.value = '';
      if (file) onFile(file);
    });
    /** The Upload button, for the page to place (the image list's header). */
    this.button = button('upload-button', 'Upload an image…', () => this.input.click());
    this.button.title = 'Upload an image (or drop one anywhere on the page)';
    parent.append(this.root, this.overlay, this.input);
    this.hideTimer = 0;
  }

  /** Shows the panel for a new upload of `fileName` (`size` bytes) as image `name`. */
  begin({ name, fileName, size }) {
    clearTimeout(this.hideTimer);
    this.root.hidden = false;
    this.root.classList.remove('failed', 'finished');
    this.bar.hidden = false;
    this.status.setAttribute('role', 'status');
    this.name.textContent = name;
    this.name.title = `Uploaded as “${name}”`;
    this.file.textContent = `${fileName} · ${formatBytes(size)}`;
    this.onReplace = null;
    this.show({ text: 'Starting the upload…', fraction: 0 }, { cancel: true });
  }

  /**
   * Shows a state line and the bar (`fraction` 0–1, or `null`: indeterminate), and which buttons are offered.
   * @param {{text: string, fraction: number | null}} summary
   * @param {{cancel?: boolean, close?: boolean, replace?: (() => void) | null}} buttons
   */
  show({ text, fraction }, { cancel = false, close = false, replace = null } = {}) {
    this.status.textContent = text;
    if (fraction === null) this.bar.removeAttribute('value');
    else this.bar.value = fraction;
    this.cancel.hidden = !cancel;
    this.close.hidden = !close;
    this.onReplace = replace;
    this.replace.hidden = !replace;
  }

  /** Shows why the upload ended badly (read out as an alert), with Close (and Replace when the name is taken). */
  fail(message, replace = null) {
    this.root.classList.add('failed');
    this.status.setAttribute('role', 'alert');
    this.show({ text: message, fraction: null }, { close: true, replace });
    this.bar.hidden = true;
  }

  /** Shows that the upload is over and hides the panel after `ms`. */
  finish(text, ms = 6000) {
    this.root.classList.add('finished');
    this.show({ text, fraction: 1 }, { close: true });
    clearTimeout(this.hideTimer);
    this.hideTimer = setTimeout(() => this.hide(), ms);
  }

  /** A one-line note (an upload needs a token, one at a time) in the panel, with Close. */
  note(text) {
    if (this.root.hidden) {
      this.name.textContent = 'Upload';
      this.file.textContent = '';
      this.bar.hidden = true;
      this.root.hidden = false;
      this.show({ text, fraction: null }, { close: true });
    } else {
      this.status.textContent = text;
    }
  }

  /** Hides the panel. */
  hide() {
    clearTimeout(this.hideTimer);
    this.root.hidden = true;
    this.bar.hidden = false;
    this.status.setAttribute('role', 'status');
  }

  /**
   * Shows or hides the drop overlay; without permission to upload (`allowed` false) it says so before the drop.
   */
  dropping(on, allowed = true) {
    this.overlay.hidden = !on;
    if (!on) return;
    this.overlay.classList.toggle('refused', !allowed);
    this.overlayText.textContent = allowed ? 'Drop the image to upload it' : NEEDS_TOKEN_TEXT;
  }
}
