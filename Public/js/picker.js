// The start page: every served image as a card with its thumbnail (a single small tile), name and size, linking
// to `#image=NAME`. Also the page's loading, empty and error states.

import { formatHash } from './deep-link.js';

/** Creates an element with a class and optional text. */
function element(tag, className, text = '') {
  const node = document.createElement(tag);
  node.className = className;
  if (text) node.textContent = text;
  return node;
}

/**
 * The image list page inside `parent`.
 */
export class ImagePicker {
  /**
   * @param {HTMLElement} parent
   * @param {HTMLElement} [action] A control for the header's right end (the Upload button).
   */
  constructor(parent, action) {
    this.root = element('section', 'picker');
    const header = element('header', 'picker-header');
    const title = element('h1', 'logo', 'Tiler');
    this.subtitle = element('p', 'subtitle', '');
    header.append(title, this.subtitle);
    if (action) header.append(action);
    /** Whether the empty list says that an image can be dropped (the page has a write token). */
    this.uploadHint = false;
    this.body = element('div', 'picker-body');
    this.root.append(header, this.body);
    parent.append(this.root);
  }

  /** Shows a loading line. */
  showLoading() {
    this.subtitle.textContent = 'Loading the image list…';
    this.body.replaceChildren();
  }

  /**
   * Shows `images` as cards (or how to add some, when there are none).
   * @param {import('./api.js').ImageInfo[]} images
   */
  show(images) {
    this.subtitle.textContent = images.length === 1 ? '1 image' : `${images.length} images`;
    if (images.length === 0) {
      const empty = element('p', 'empty');
      if (this.uploadHint) empty.append('No images are served yet. Drop one anywhere on this page (or press ', element('strong', '', 'Upload an image…'), ').');
      else empty.append('No images are served yet. Slice one into the served folder: ', element('code', '', 'tiler slice photo.jpg -o ROOT'));
      this.body.replaceChildren(empty);
      return;
    }
    const grid = element('ul', 'cards');
    for (const image of images) grid.append(this.card(image));
    this.body.replaceChildren(grid);
  }

  /** One image's card. */
  card(image) {
    const p = image.pyramid;
    const item = element('li', 'card');
    const link = element('a', 'card-link');
    link.href = formatHash({ image: image.name, view: null });
    const frame = element('div', 'thumb');
    const img = element('img', '');
    img.alt = '';
    img.loading = 'lazy';
    img.decoding = 'async';
    img.src = image.thumbnailURL;
    img.addEventListener('error', () => frame.classList.add('broken'), { once: true });
    frame.append(img);
    const caption = element('div', 'caption');
    const slicing = image.state === 'slicing' ? ` · slicing ${Math.floor((image.progress ?? 0) * 100)}%` : '';
    const size = `${p.width.toLocaleString('en')} × ${p.height.toLocaleString('en')} px · ${p.maxLevel + 1} levels${slicing}`;
    caption.append(element('span', 'name', image.name), element('span', 'size', size));
    if (image.associated.label) {
      // A slide's label (its handwritten or printed tag) beside its name, as a pathologist knows the slide by it.
      const label = element('img', 'slide-label');
      label.alt = `${image.name}: the slide's label`;
      label.loading = 'lazy';
      label.src = image.associated.label;
      label.addEventListener('error', () => label.remove(), { once: true });
      caption.classList.add('with-label');
      caption.prepend(label);
    }
    link.append(frame, caption);
    item.append(link);
    return item;
  }

  /** Shows a problem (e.g. why the list could not be loaded) with a button, `Retry` unless `label` says else. */
  showError(message, onRetry, label = 'Retry') {
    this.subtitle.textContent = '';
    const box = element('div', 'error-page');
    box.setAttribute('role', 'alert');
    const retry = element('button', 'retry', label);
    retry.type = 'button';
    retry.addEventListener('click', onRetry);
    box.append(element('p', '', message), retry);
    this.body.replaceChildren(box);
  }

  /** Removes the page. */
  remove() {
    this.root.remove();
  }
}
