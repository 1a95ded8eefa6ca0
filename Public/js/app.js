// The entry point: routes the URL hash to the image list or to a viewer, keeps the hash in step with the view
// (so a copied URL reopens it and back/forward move between the list and images), and exposes `window.tiler`
// for tests and debugging.

import { listImages } from './api.js';
import { formatHash, parseHash, sameView } from './deep-link.js';
import { parseOptions } from './options.js';
import { ImagePicker } from './picker.js';
import { Viewer } from './viewer.js';

const main = document.getElementById('app');
const { options, problems } = parseOptions(location.search);
for (const problem of problems) console.warn(`Tiler: ignoring a setting: ${problem}`);

let viewer = null;
let picker = null;
let routeNumber = 0;

/** Shows what the hash names. Later calls supersede earlier ones still waiting for the network. */
async function route() {
  const number = ++routeNumber;
  const place = parseHash(location.hash);
  if (!place.image) return showPicker(number);
  if (viewer && viewer.image.name === place.image) {
    if (place.view && !sameView(place.view, viewer.view)) viewer.setView(place.view);
    return;
  }
  closeViewer();
  closePicker();
  let images;
  try {
    images = await listImages();
  } catch (error) {
    if (number === routeNumber) showProblem(error.message, true);
    return;
  }
  if (number !== routeNumber) return;
  const image = images.find((candidate) => candidate.name === place.image);
  if (!image) return showProblem(`There is no image named “${place.image}” on this server.`, false);
  document.title = `${image.name} — Tiler`;
  viewer = new Viewer(main, image, options, {
    onSettle: (view) => {
      const hash = formatHash({ image: image.name, view });
      if (location.hash !== hash && parseHash(location.hash).image === image.name) history.replaceState(history.state, '', hash);
    },
  });
  viewer.start(place.view);
}

/** The image list. */
async function showPicker(number) {
  closeViewer();
  document.title = 'Tiler';
  if (!picker) picker = new ImagePicker(main);
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
  closePicker();
  picker = new ImagePicker(main);
  if (retryable) picker.showError(message, () => route());
  else picker.showError(message, () => (location.hash = ''), 'All images');
}

function closeViewer() {
  viewer?.destroy();
  viewer = null;
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
    return viewer;
  },
  get state() {
    return viewer?.debug ?? null;
  },
};

route();
