// The Tiler app page: routes the URL hash to the image list or to a `<tiler-viewer>` with the top bar and the
// navigator outside its content (contentInset and scrollIndicatorInsets), keeps the hash in step with the view (so a
// copied URL reopens it and back/forward move between the list and images), and exposes `window.tiler` for tests.
// Given a write token (`#write-token=…`), it takes dropped or picked images (uploads.js), opens each as soon as the
// server can show it, and moves an image still being sliced to its final version when its job is done.

import { listImages } from './api.js';
import { formatHash, parseHash, sameView } from './deep-link.js';
import { parseOptions } from './options.js';
import { ImagePicker } from './picker.js';
import { StatusBar } from './status-bar.js';
import { jobId, watchJob } from './upload-client.js';
import { jobSummary } from './upload-model.js';
import { Uploads } from './uploads.js';
import { rememberWriteToken } from './write-token.js';
import './tiler-viewer.js';

/** How long the view must rest before it is written to the URL, in ms. */
const SETTLE_MS = 200;
/** The chrome's margin from the window's edges, in points. */
const MARGIN = 12;
/** How often, and how far apart in ms, the list is read again for an image an upload has just made viewable. */
const LIST_RETRIES = 10;
const LIST_RETRY_MS = 300;
/**
 * How often an image whose descriptor could not be read is looked up again: a provisional descriptor vanishes when the
 * final version is published, and a replaced image's old version when its replacement is (the list may have named it
 * a moment before).
 */
const MAX_REOPENINGS = 3;

const main = document.getElementById('app');
const { options, problems } = parseOptions(location.search);
for (const problem of problems) console.warn(`Tiler: ignoring a setting: ${problem}`);

let open = null; // {name, root, viewer, status, settleTimer, stopFollowing}
let picker = null;
let routeNumber = 0;
/** Image name → how often it was looked up again after its descriptor could not be read. */
const reopenings = new Map();
let storage = null;
try {
  storage = window.sessionStorage;
} catch {
  // Storage refused (a sandboxed frame): the token lasts as long as the page.
}
const uploads = new Uploads(document.body, { token: rememberWriteToken(location, history, storage), openImage });

/** Shows what the hash names. Later calls supersede earlier ones still waiting for the network. */
async function route() {
  const number = ++routeNumber;
  const place = parseHash(location.hash);
  if (!place.image) return showPicker(number);
  if (open && open.name === place.image) {
    if (place.view && open.viewer.scrollView && !sameView(place.view, viewOf(open.viewer))) open.viewer.setView(place.view);
    return;
  }
  closeViewer();
  closePicker();
  let image;
  try {
    // An upload that has just become viewable may reach the list a moment after its job said so.
    for (let attempt = 0; !image && (attempt === 0 || (uploads.expects(place.image) && attempt <= LIST_RETRIES)); attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, LIST_RETRY_MS));
      const images = await listImages();
      if (number !== routeNumber) return;
      image = images.find((candidate) => candidate.name === place.image);
    }
  } catch (error) {
    if (number === routeNumber) showProblem(error.message, true);
    return;
  }
  if (!image) return showProblem(`There is no image named “${place.image}” on this server.`, false);
  document.title = `${image.name} — Tiler`;
  showViewer(image, place.view);
}

/** Opens `image` in a full-window element at `view` (or fitted). */
function showViewer(image, view) {
  const root = document.createElement('div');
  root.className = 'viewer';
  const viewer = document.createElement('tiler-viewer');
  viewer.setAttribute('navigator', '');
  viewer.setAttribute('aria-label', `${image.name}: drag to pan, scroll or pinch to zoom, double-click to zoom in`);
  viewer.settings.maxDevicePixels = options.maxScale;
  viewer.settings.cacheCapacity = options.cacheCapacity;
  viewer.settings.prefetch = options.prefetch;
  viewer.settings.maxInFlight = options.maxInFlight;
  if (image.micronsPerPixel) {
    viewer.micronsPerPixel = image.micronsPerPixel;
    viewer.setAttribute('scalebar', '');
  }
  root.append(viewer);
  main.append(root);
  const p = image.pyramid;
  const now = () => performance.now();
  const status = new StatusBar(root, { name: image.name, width: p.width, height: p.height }, {
    onZoomIn: () => viewer.controller?.zoomBy(2, viewer.scrollView.centre, now()),
    onZoomOut: () => viewer.controller?.zoomBy(0.5, viewer.scrollView.centre, now()),
    onFit: () => viewer.controller?.fit(now()),
    onRetry: () => viewer.retry(),
  });
  // While the image is provisional (still being sliced) its tiles vanish when the final version is published, a
  // moment before the job's `done` moves the viewer to it: no error banner for those.
  const current = { name: image.name, root, viewer, status, settleTimer: 0, provisional: image.state === 'slicing', stopFollowing: null };
  open = current;
  const update = () => {
    const { loading, error } = viewer.lastStatus ?? { loading: true, error: null };
    status.update({ zoomScale: viewer.zoomScale, devicePixelRatio: window.devicePixelRatio || 1, loading, error: current.provisional ? null : error });
  };
  current.stopFollowing = followJob(image, current, update);
  viewer.addEventListener('load', () => {
    applyInsets(viewer, status);
    if (view) viewer.setView(view);
    else if (image.bounds) viewer.zoomToRect(image.bounds);
    viewer.focus({ preventScroll: true });
    update();
  });
  viewer.addEventListener('error', (e) => {
    // A versioned descriptor is gone once a newer version is published — a provisional one's final version, or the
    // replacement of an image dropped again under its name: read the list again (a few times at most).
    const reopened = reopenings.get(image.name) ?? 0;
    const vanished = current.provisional || e.detail.status === 404;
    if (!vanished || reopened >= MAX_REOPENINGS) return showProblem(e.detail.message, true);
    reopenings.set(image.name, reopened + 1);
    closeViewer();
    route();
  });
  viewer.addEventListener('tilestatus', update);
  viewer.addEventListener('didscroll', () => {
    update();
    scheduleSettle(open, image.name);
  });
  viewer.src = image.dzi;
}

/**
 * For an image still being sliced (its list entry names its job), or one this page is replacing: follows the job and,
 * when it is done, moves the viewer to the final version keeping the view; if a provisional image's job fails, says
 * why. Returns how to stop, or `null`.
 */
function followJob(image, current, update) {
  // An image dropped again under its name is listed in its old version until the replacement is published: the
  // upload's job moves the viewer on then (and its failure leaves the old version shown; the panel says why).
  const upload = uploads.current;
  const replacing = !current.provisional && uploads.expects(image.name) && upload.job?.id && upload.job.dzi !== image.dzi;
  const followed = current.provisional ? image.job : replacing ? upload.job.id : null;
  if (!followed) return null;
  return watchJob(jobId(followed), {
    onJob: (job) => {
      if (open !== current) return;
      if (job.state === 'done' && job.dzi) {
        if (current.viewer.getAttribute('src') === job.dzi) return;
        current.viewer.replaceSource(job.dzi).then(
          () => {
            current.provisional = false;
            update();
          },
          (error) => showProblem(error.message, true),
        );
      } else if (jobSummary(job).failed && current.provisional) {
        showProblem(jobSummary(job).text, false);
      }
    },
  });
}

/** Shows image `name` (an upload the server can now show), reopening it if it is the one open (a replacement). */
function openImage(name) {
  if (parseHash(location.hash).image !== name) {
    location.hash = formatHash({ image: name, view: null });
    return;
  }
  closeViewer();
  route();
}

/** The top bar and the navigator are outside the content: every part of the image can be scrolled into clear view. */
function applyInsets(viewer, status) {
  const top = status.bar.getBoundingClientRect().bottom + MARGIN / 2;
  const navigator = viewer.navigator ? viewer.navigator.height + 2 + 2 * MARGIN : 0;
  const inset = { top, left: 0, bottom: navigator, right: 0 };
  viewer.contentInset = inset;
  viewer.scrollIndicatorInsets = inset;
}

/** Writes the view to the hash once it has rested for {@link SETTLE_MS}. */
function scheduleSettle(current, name) {
  if (!current) return;
  clearTimeout(current.settleTimer);
  current.settleTimer = setTimeout(() => {
    if (open !== current) return;
    if (!current.viewer.debug?.gestureIdle) return scheduleSettle(current, name);
    const hash = formatHash({ image: name, view: viewOf(current.viewer) });
    if (location.hash !== hash && parseHash(location.hash).image === name) history.replaceState(history.state, '', hash);
  }, SETTLE_MS);
}

function viewOf(viewer) {
  return { zoomScale: viewer.zoomScale, ...viewer.contentOffset };
}

/** The image list. */
async function showPicker(number) {
  closeViewer();
  document.title = 'Tiler';
  if (!picker) picker = newPicker();
  picker.showLoading();
  try {
    const images = await listImages();
    if (number === routeNumber && picker) picker.show(images);
  } catch (error) {
    if (number === routeNumber && picker) picker.showError(error.message, () => route());
  }
}

/** A page-sized message with a way back to the list (and a retry when it may help). */
function showProblem(message, retryable) {
  closeViewer();
  closePicker();
  picker = newPicker();
  if (retryable) picker.showError(message, () => route());
  else picker.showError(message, () => (location.hash = ''), 'All images');
}

/** The list page, with the Upload button when the page may upload. */
function newPicker() {
  const page = new ImagePicker(main, uploads.panel.button);
  page.uploadHint = Boolean(uploads.token);
  return page;
}

function closeViewer() {
  if (!open) return;
  clearTimeout(open.settleTimer);
  open.stopFollowing?.();
  open.viewer.close();
  open.root.remove();
  open = null;
}

function closePicker() {
  picker?.remove();
  picker = null;
}

window.addEventListener('hashchange', () => route());

/** The test and debugging surface: `window.tiler.state` is a snapshot of the open viewer. */
window.tiler = {
  options,
  get viewer() {
    return open?.viewer ?? null;
  },
  get state() {
    return open?.viewer.debug ?? null;
  },
  /** The write token ('' for none); setting it shows or hides the Upload button. */
  get writeToken() {
    return uploads.token;
  },
  set writeToken(value) {
    uploads.token = value;
    if (picker) picker.uploadHint = Boolean(uploads.token);
  },
  uploads,
};

route();
