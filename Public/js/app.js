// The Tiler app page: routes the URL hash to the image list or to a `<tiler-viewer>` with the top bar and the
// navigator outside its content (contentInset and scrollIndicatorInsets), keeps the hash in step with the view (so a
// copied URL reopens it and back/forward move between the list and images), and exposes `window.tiler` for tests.
// Given a write token (`#write-token=…`), it takes dropped or picked images (uploads.js), opens each as soon as the
// server can show it, and moves an image still being sliced to its final version when its job is done. Given a read
// token (`?token=…` or `#token=…`, read-token.js; or from the embedding site's sign-in, see `askForToken`), it lists
// and opens the private images the token grants, and tells someone holding one "no access" from "no such image".
// A slide gets its side panel (slide-panel.js) and its magnification; the image may be turned and shown full screen.

import { imageStatus, listImages } from './api.js';
import { formatHash, parseHash, sameView } from './deep-link.js';
import { parseOptions } from './options.js';
import { ImagePicker } from './picker.js';
import { StatusBar } from './status-bar.js';
import { jobId, watchJob } from './upload-client.js';
import { jobSummary } from './upload-model.js';
import { Uploads } from './uploads.js';
import { rememberWriteToken, takeWriteToken } from './write-token.js';
import { rememberReadToken, storeReadToken, takeReadToken } from './read-token.js';
import { bearerFetch } from './http.js';
import { SlidePanel, baseMagnification, formatMagnification, isSlide } from './slide-panel.js';
import { aspectFitZoom } from './zoom-math.js';
import { shownSize } from './orientation.js';
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
/** The read token ('' for none): sent as the bearer on the list, descriptors, properties and viewport reports. */
let readToken = rememberReadToken(location, history, storage).token;
/** The app's fetch for its API requests, with the read token (a refusal is handled where it matters: `explainMissing`). */
const appFetch = bearerFetch(() => readToken, () => {});
/** The sign-in asked for and not answered yet (one at a time), or `null`. */
let tokenRequest = null;
/** Whether the server refused the read token this page had (it expired): the words then say so. */
let tokenSpent = false;
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
      const images = await loadList();
      if (number !== routeNumber) return;
      image = images.find((candidate) => candidate.name === place.image);
    }
  } catch (error) {
    if (number === routeNumber) showProblem(error.message, true);
    return;
  }
  if (!image) return explainMissing(place.image, number);
  document.title = `${image.name} — Tiler`;
  showViewer(image, place.view);
}

/**
 * The image list with the read token. A token the server refuses (expired, revoked) is dropped — the list is then the
 * public one — and the words for a private image say that access ran out: the server answers such a list either with
 * the public images and `Tiler-Token-Refused`, or (older servers) with a 401 for the whole list, asked again without.
 */
async function loadList() {
  let images;
  try {
    images = await listImages(undefined, appFetch);
  } catch (error) {
    if (error.status !== 401 || !readToken) throw error;
    dropSpentToken();
    images = await listImages(undefined, appFetch);
  }
  if (images.tokenRefused && readToken) dropSpentToken();
  return images;
}

/** The read token was refused: forgotten for the tab (the sign-in hook may give a fresh one). */
function dropSpentToken() {
  tokenSpent = true;
  readToken = '';
  storeReadToken(storage, '');
}

/**
 * Image `name` is not in the list: asks the server why (its descriptor's answer) and says it in words — to someone
 * with a token, "your access does not include it" (403) apart from "there is no such image" (404); to someone
 * without one (or whose token expired, 401), that it may be private, and asks the embedding page to sign in.
 */
async function explainMissing(name, number) {
  let status;
  try {
    status = await imageStatus(name, appFetch);
  } catch (error) {
    if (number === routeNumber) showProblem(error.message, true);
    return;
  }
  if (number !== routeNumber) return;
  if (status === 'found') return showProblem(`“${name}” is not in the image list yet.`, true);
  if (status === 'missing') return showProblem(`There is no image named “${name}” on this server.`, false);
  if (status === 'denied') {
    showProblem(`Your access does not include “${name}”: ask whoever gave you your link for access to this image.`, false, 'denied');
    return;
  }
  const reason = readToken || tokenSpent ? 'expired' : 'missing';
  const message = reason === 'expired'
    ? `Your access has run out (or is not valid here). Open “${name}” from a fresh link, or sign in again.`
    : `“${name}” is private, or there is no image of that name. If you have access, open it from the link you were given, or sign in.`;
  showProblem(message, false, reason);
  askForToken(name, reason);
}

/**
 * The sign-in hook: asks the page that embeds the app for a read token. Fires `tiler:needtoken` on `window` (detail
 * `{image, reason, respondWith(token | Promise<token>)}`; `reason` is `missing` or `expired`), and when
 * the app is in a frame, posts `{type: 'tiler:needtoken', image, reason}` to the parent, which may answer with
 * `{type: 'tiler:token', token}`. A token given either way is kept for the tab and the image opened with it.
 */
function askForToken(image, reason) {
  const request = { image, reason };
  tokenRequest = request;
  const respondWith = (answer) => {
    Promise.resolve(answer).then((token) => {
      // The token refused again is no answer (else a refused token would be asked for and tried for ever).
      if (tokenRequest === request && typeof token === 'string' && token && token !== readToken) useReadToken(token);
    }, (error) => console.warn(`Tiler: the sign-in gave no token: ${error?.message ?? error}`));
  };
  window.dispatchEvent(new CustomEvent('tiler:needtoken', { detail: { image, reason, respondWith } }));
  if (window.parent !== window) window.parent.postMessage({ type: 'tiler:needtoken', image, reason }, '*');
}

/** A read token from a link, the sign-in hook or a script: kept for the tab; the page shows what it now opens. */
function useReadToken(token) {
  tokenRequest = null;
  readToken = token ?? '';
  tokenSpent = false;
  storeReadToken(storage, readToken);
  if (open && readToken) {
    open.viewer.token = readToken;
    return;
  }
  closeViewer();
  route();
}

// The parent of a framed app answering `tiler:needtoken` (only the parent: other frames and windows are ignored).
window.addEventListener('message', (e) => {
  if (e.source !== window.parent || window.parent === window) return;
  if (e.data?.type === 'tiler:token' && typeof e.data.token === 'string') useReadToken(e.data.token);
});

/** Opens `image` in a full-window element at `view` (or fitted). */
function showViewer(image, view) {
  const root = document.createElement('div');
  root.className = 'viewer';
  const viewer = document.createElement('tiler-viewer');
  viewer.setAttribute('navigator', '');
  viewer.setAttribute('alt', `${image.name}: drag to pan, scroll or pinch to zoom, double-click to zoom in`);
  viewer.token = readToken;
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
  const slide = isSlide(image);
  const base = baseMagnification(image.objectivePower, image.micronsPerPixel);
  // A slide's zoom reads as its magnification, spoken and shown.
  if (slide && base) viewer.a11y.describeZoom = (z) => `Magnification ${formatMagnification(base * z)}`;
  let panel = null;
  const status = new StatusBar(root, { name: image.name, width: p.width, height: p.height }, {
    onZoomIn: () => viewer.controller?.zoomBy(2, viewer.scrollView.centre, now()),
    onZoomOut: () => viewer.controller?.zoomBy(0.5, viewer.scrollView.centre, now()),
    onFit: () => viewer.controller?.fit(now()),
    onRetry: () => viewer.retry(),
    onRotate: () => viewer.rotate(90),
    onFullscreen: () => toggleFullscreen(),
    onSlide: slide ? () => panel?.toggle() : undefined,
  }, slide && base ? { formatZoom: (z) => formatMagnification(base * z) } : {});
  if (slide) {
    panel = new SlidePanel(root, image, {
      viewer, fetch: appFetch,
      onToggle: (isOpen) => {
        status.slideOpen(isOpen);
        if (viewer.scrollView) applyInsets(viewer, status, panel);
      },
    });
    // Open beside the slide where there is room for both; on a phone it waits for its button.
    panel.toggle(window.innerWidth >= 900);
  }
  // While the image is provisional (still being sliced) its tiles vanish when the final version is published, a
  // moment before the job's `done` moves the viewer to it: no error banner for those.
  const current = { name: image.name, root, viewer, status, settleTimer: 0, provisional: image.state === 'slicing', stopFollowing: null };
  open = current;
  const update = () => {
    const { loading, error } = viewer.lastStatus ?? { loading: true, error: null };
    status.update({ zoomScale: viewer.zoomScale, devicePixelRatio: window.devicePixelRatio || 1, loading, error: current.provisional ? null : error });
    panel?.update();
  };
  current.panel = panel;
  current.stopFollowing = followJob(image, current, update);
  viewer.addEventListener('load', () => {
    applyInsets(viewer, status, panel);
    if (view) viewer.setView(view);
    else if (image.bounds) viewer.zoomToRect(image.bounds);
    viewer.focus({ preventScroll: true });
    update();
  });
  viewer.addEventListener('error', (e) => {
    // A versioned descriptor is gone once a newer version is published — a provisional one's final version, or the
    // replacement of an image dropped again under its name: read the list again (a few times at most).
    // Refused (a token that expired or does not grant it, between the list and the descriptor): say which, in words.
    if (e.detail.status === 401 || e.detail.status === 403) return explainMissing(image.name, routeNumber);
    const reopened = reopenings.get(image.name) ?? 0;
    const vanished = current.provisional || e.detail.status === 404;
    if (!vanished || reopened >= MAX_REOPENINGS) return showProblem(e.detail.message, true);
    reopenings.set(image.name, reopened + 1);
    closeViewer();
    route();
  });
  viewer.addEventListener('tilestatus', update);
  // A token refused while the image is open (it expired): the embedding page's sign-in may give a fresh one, and the
  // element then keeps the view and every tile it has.
  // (Refused before the image opened, the `error` that follows says why and asks.)
  viewer.addEventListener('tokenexpired', () => {
    if (viewer.source) askForToken(image.name, 'expired');
  });
  // Turned a quarter, the image has another shape: the navigator's corner and the fit are worked out again.
  viewer.addEventListener('orientationchange', () => applyInsets(viewer, status, panel));
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

/**
 * The top bar, a slide's panel and the navigator are outside the content: every part of the image can be scrolled
 * into clear view. The navigator sits in the bottom-right corner: the image keeps clear of it either above it (a band
 * along the bottom) or beside it (a band along the right), whichever lets the image be fitted larger — a square slide
 * in a landscape window goes beside it and uses the window's height.
 */
function applyInsets(viewer, status, panel) {
  const top = status.bar.getBoundingClientRect().bottom + MARGIN / 2;
  const left = panel?.open ? panel.width + MARGIN : 0;
  let inset = { top, left, bottom: 0, right: 0 };
  const nav = viewer.navigator?.shownSize;
  if (nav) {
    const box = { width: viewer.clientWidth, height: viewer.clientHeight };
    const size = viewer.source ? shownSize(viewer.source.pyramid, viewer.orientation) : { width: 1, height: 1 };
    const above = { ...inset, bottom: nav.height + 2 + 2 * MARGIN };
    const beside = { ...inset, right: nav.width + 2 + 2 * MARGIN };
    const fit = (i) => aspectFitZoom(size, { width: Math.max(1, box.width - i.left - i.right), height: Math.max(1, box.height - i.top - i.bottom) });
    inset = fit(beside) > fit(above) ? beside : above;
  }
  viewer.contentInset = inset;
  viewer.scrollIndicatorInsets = inset;
}

/** The app shows the whole page full screen (its bar and panel too), or leaves full screen. */
function toggleFullscreen() {
  const refused = (error) => console.warn(`Tiler: full screen was refused (${error.message})`);
  if (document.fullscreenElement) document.exitFullscreen().catch(refused);
  else document.documentElement.requestFullscreen?.({ navigationUI: 'hide' })?.catch(refused);
}

// The window's shape changes what fits best beside the navigator.
window.addEventListener('resize', () => {
  if (open?.viewer.scrollView) applyInsets(open.viewer, open.status, open.panel);
});

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
    const images = await loadList();
    if (number === routeNumber && picker) picker.show(images);
  } catch (error) {
    if (number === routeNumber && picker) picker.showError(error.message, () => route());
  }
}

/**
 * A page-sized message with a way back to the list (and a retry when it may help). `kind` marks an access problem
 * (`missing`, `expired`: no token or a spent one; `denied`: the token does not grant it) for styling and tests.
 */
function showProblem(message, retryable, kind = '') {
  closeViewer();
  closePicker();
  picker = newPicker();
  if (retryable) picker.showError(message, () => route());
  else picker.showError(message, () => (location.hash = ''), 'All images');
  if (kind) picker.body.querySelector('.error-page')?.setAttribute('data-access', kind);
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

// A link pasted into an open tab changes only the fragment: tokens in it are taken (kept for the tab, removed from
// the address and from that history entry) as they are when a page loads.
window.addEventListener('hashchange', () => {
  if (takeWriteToken(location.hash).token !== null) {
    window.tiler.writeToken = rememberWriteToken(location, history, storage);
  }
  if (takeReadToken('', location.hash).token !== null) {
    const { token } = rememberReadToken(location, history, storage);
    readToken = token;
    tokenSpent = false;
    if (open) open.viewer.token = token;
  }
  route();
});

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
  /** The read token ('' for none); setting it (a page's sign-in) keeps it for the tab and opens what it grants. */
  get readToken() {
    return readToken;
  },
  set readToken(value) {
    useReadToken(value ?? '');
  },
  uploads,
};

route();
