// Baliza Verificador (/verificar): river police scan a certificate QR, or paste its link, and get
// the verdict on the phone itself, with or without signal.
//
// Offline first: the signature is checked against public keys cached from /api/v1/keys, the
// status (revoked, suspended, superseded) comes from the signed list cached from
// /api/v1/status-list, and expiry from the token's valid_until against today's local date.
// Both lists live in localStorage with the time they arrived (the service worker keeps a second
// copy); when online they are refreshed first and the server is asked to confirm, but the
// verdict computed here stands on its own. Only the signed claims are ever shown: nothing about
// owners, inspectors, deficiencies, photos or fees exists in the token (certificates.md).
import { ServerAnswerError, downloadLists, fetchJson, loadLists } from './lists.js';
import {
  MINUTE_MS, REFRESH_BEFORE_VERIFY_MS, assess, officeToday, confirmation, factsView, inputProblem, listsAge, listsView,
  parseInput, tokenFromAddress, verdictView,
} from './verdicts.js';
import { officeZone, pageLanguage } from './formats.js';
import { gettext } from './i18n.js';
import { photoReader } from './qr-photo.js';

const VERIFY_URL = '/api/v1/verify/';
const SCAN_INTERVAL_MS = 150;
const SCAN_MAX_SIDE = 960; // px; a version-15 QR filling a third of the frame keeps ~4 px/module

const LANG = pageLanguage();
const root = document.getElementById('verificador');
const $ = (id) => document.getElementById(id);
const el = {
  result: $('result'), verdict: $('verdict'), word: $('verdict-word'), note: $('verdict-note'), age: $('verdict-age'),
  facts: $('facts'), confirm: $('confirm'), input: $('token-input'), form: $('manual'),
  inputError: $('input-error'), scan: $('scan'), camera: $('camera'), video: $('video'), stop: $('stop'),
  photo: $('photo'), lists: $('lists'), listsAge: $('lists-age'), listsDetail: $('lists-detail'),
  offline: $('offline'), refresh: $('refresh'),
};
const OFFICES = JSON.parse(root.dataset.offices || '{}');
const RESTRICTIONS = JSON.parse(root.dataset.restrictions || '{}'); // code -> words (checklists/restrictions.toml)

/** Today on the office's calendar (the page's data-office-tz). */
const today = () => officeToday(new Date(), root.dataset.officeTz);

// --- the cached lists --------------------------------------------------------------------------

// In memory first (localStorage may be full or blocked), persisted when possible.
const state = { keys: null, status: null, online: null, refreshError: false };

let refreshing = null;

/** Refresh both lists once at a time; updates the online flag and the lists panel. */
function refreshLists() {
  if (!refreshing) {
    el.listsAge.textContent = gettext('Actualizando las listas…');
    refreshing = downloadLists(state)
      .then((live) => { state.online = live; state.refreshError = false; askPersistence(); })
      .catch((err) => { state.online = err instanceof ServerAnswerError; state.refreshError = true; })
      .finally(() => { refreshing = null; renderLists(); });
  }
  return refreshing;
}

let persistenceAsked = false;

/** Ask the browser not to evict the lists under storage pressure (field-lessons.md). */
function askPersistence() {
  if (persistenceAsked || !navigator.storage || !navigator.storage.persist) return;
  persistenceAsked = true;
  navigator.storage.persisted().then((done) => done || navigator.storage.persist()).catch(() => {});
}

// --- the page ----------------------------------------------------------------------------------

function setText(id, text) {
  $(id).textContent = text;
}

function renderFacts(claims, kid, verdict) {
  const facts = factsView(claims, kid, verdict, { today: today(), offices: OFFICES, lang: LANG, restrictions: RESTRICTIONS });
  el.facts.hidden = !facts;
  if (facts) Object.entries(facts).forEach(([id, text]) => setText(id, text));
  $('f-restrictions').hidden = !facts || !facts['f-restrictions'];
  $('f-countersign').hidden = !facts || !facts['f-countersign'];
}

function render(assessment) {
  const view = verdictView(assessment, { now: Date.now(), zone: officeZone(), lang: LANG });
  el.result.hidden = false;
  el.verdict.className = `verdict verdict-${view.tone}`;
  el.verdict.dataset.verdict = assessment.verdict;
  el.word.replaceChildren();
  const icon = document.createElement('span');
  icon.className = 'icon';
  icon.setAttribute('aria-hidden', 'true');
  icon.textContent = view.icon;
  el.word.append(icon, view.word);
  el.note.textContent = view.note;
  el.age.textContent = view.age;
  el.age.hidden = !view.age;
  el.age.classList.toggle('old', view.old);
  renderFacts(assessment.claims, assessment.kid, assessment.verdict);
  recordCheckLink(assessment);
  el.result.scrollIntoView({ block: 'start' });
}

/** "Registrar control": the police phone's patrol check of this vessel, carrying the token, the verdict and how
 * old the lists behind it are (static/js/patrol/flow.js scannedFrom). */
function recordCheckLink(assessment) {
  const link = $('record-check');
  if (!link || !currentToken || assessment.verdict === 'malformed') { if (link) link.hidden = true; return; }
  const age = listsAge(state, Date.now());
  const params = new URLSearchParams({ t: currentToken, verdict: assessment.verdict });
  if (Number.isFinite(age)) params.set('age', String(Math.max(0, Math.floor(age / 1000))));
  link.href = `/patrulla?${params}`;
  link.hidden = false;
}

function renderChecking() {
  el.result.hidden = false;
  el.verdict.className = 'verdict verdict-checking';
  delete el.verdict.dataset.verdict;
  el.word.textContent = gettext('Verificando…');
  el.note.textContent = '';
  el.age.hidden = true;
  el.facts.hidden = true;
  el.confirm.hidden = true;
}

function renderLists() {
  const view = listsView(state, Date.now());
  root.dataset.lists = view.state;
  el.offline.hidden = state.online !== false && navigator.onLine !== false;
  el.listsAge.textContent = view.age;
  el.listsDetail.textContent = view.detail;
  el.lists.classList.toggle('warn', view.warn);
}

let currentToken = null;

function listsFingerprint() {
  return JSON.stringify([state.keys && state.keys.jwks, state.status && state.status.iat]);
}

const assessNow = (token) => assess(token, state, { today: today(), now: Date.now(), lang: LANG });

/**
 * Verify a token. The verdict from the stored lists shows at once (a weak signal must not keep
 * the officer waiting); when online and the lists are old they are refreshed, the verdict is
 * recomputed if they changed, and finally the server is asked to confirm.
 */
async function verify(token) {
  currentToken = token;
  renderChecking();
  const online = navigator.onLine !== false;
  if (!state.keys && (refreshing || online)) await refreshLists(); // first visit: nothing stored yet
  let assessment = await assessNow(token);
  if (currentToken !== token) return;
  render(assessment);
  if (online && (refreshing || listsAge(state, Date.now()) > REFRESH_BEFORE_VERIFY_MS)) {
    const before = listsFingerprint();
    await refreshLists();
    if (currentToken !== token) return;
    if (listsFingerprint() !== before) {
      assessment = await assessNow(token);
      if (currentToken !== token) return;
      render(assessment);
    }
  }
  confirmOnline(token, assessment);
}

/** Ask the server too when online; its answer is fresher than any cached list. */
async function confirmOnline(token, local) {
  if (navigator.onLine === false || state.online === false) return;
  let answer;
  try {
    answer = (await fetchJson(VERIFY_URL + encodeURIComponent(token))).data;
  } catch {
    return; // offline, slow or refused: the offline verdict stands
  }
  if (currentToken !== token) return;
  const confirmed = confirmation(answer, local, LANG);
  if (!confirmed) return;
  // The server's word is current: the stored lists' age no longer qualifies the verdict shown.
  render(confirmed.shown || { ...local, lists_at: null });
  el.confirm.textContent = confirmed.text;
  el.confirm.hidden = false;
}

function showInputError(message) {
  el.inputError.textContent = message;
  el.inputError.hidden = !message;
  el.input.setAttribute('aria-invalid', message ? 'true' : 'false');
}

/** Verify scanned or typed text; false when it is neither a /v/ link nor a token. */
function verifyText(text, { share = true } = {}) {
  const problem = inputProblem(text);
  if (problem) {
    showInputError(problem);
    return false;
  }
  const parsed = parseInput(text);
  showInputError('');
  el.input.value = text.trim();
  if (share && location.pathname === '/verificar') {
    history.replaceState(null, '', `${location.pathname}${location.search}#t=${encodeURIComponent(parsed.token)}`);
  }
  verify(parsed.token);
  return true;
}

// --- the camera --------------------------------------------------------------------------------

let jsqrLoading = null;

function loadJsQR() {
  if (window.jsQR) return Promise.resolve(window.jsQR);
  if (!jsqrLoading) {
    jsqrLoading = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = root.dataset.jsqr;
      script.onload = () => (window.jsQR ? resolve(window.jsQR) : reject(new Error('jsQR missing')));
      script.onerror = () => { jsqrLoading = null; reject(new Error('jsQR did not load')); };
      document.head.append(script);
    });
  }
  return jsqrLoading;
}

let detectorPromise = null;

/** A function image -> QR text or null: BarcodeDetector where it reads QR, else the vendored jsQR. */
function qrReader() {
  if (!detectorPromise) detectorPromise = makeQrReader();
  return detectorPromise;
}

async function makeQrReader() {
  if ('BarcodeDetector' in window) {
    try {
      const formats = await window.BarcodeDetector.getSupportedFormats();
      if (formats.includes('qr_code')) {
        const detector = new window.BarcodeDetector({ formats: ['qr_code'] });
        return async (source) => {
          const codes = await detector.detect(source);
          return codes.length ? codes[0].rawValue : null;
        };
      }
    } catch { /* fall through to jsQR */ }
  }
  const jsQR = await loadJsQR();
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  return async (source) => {
    const width = source.videoWidth || source.width;
    const height = source.videoHeight || source.height;
    if (!width || !height) return null;
    const scale = Math.min(1, SCAN_MAX_SIDE / Math.max(width, height));
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    ctx.drawImage(source, 0, 0, canvas.width, canvas.height);
    const image = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const found = jsQR(image.data, image.width, image.height, { inversionAttempts: 'attemptBoth' });
    return found ? found.data : null;
  };
}

let stream = null;
let scanTimer = null;

function stopCamera() {
  clearTimeout(scanTimer);
  scanTimer = null;
  if (stream) stream.getTracks().forEach((track) => track.stop());
  stream = null;
  el.video.srcObject = null;
  el.camera.hidden = true;
  el.scan.hidden = false;
}

async function startCamera() {
  showInputError('');
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showInputError(gettext('Este navegador no permite usar la cámara aquí: pegue el enlace o lea el QR de una foto.'));
    return;
  }
  let read;
  try {
    read = await qrReader();
  } catch {
    showInputError(gettext('No se pudo cargar el lector de QR.'));
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 } },
      audio: false,
    });
  } catch (err) {
    const error = err && err.name ? err.name : String(err);
    showInputError(gettext('No se pudo abrir la cámara ({error}): pegue el enlace o lea el QR de una foto.', { error }));
    return;
  }
  el.scan.hidden = true;
  el.camera.hidden = false;
  el.video.srcObject = stream;
  await el.video.play().catch(() => {});
  const tick = async () => {
    if (!stream) return;
    let text = null;
    try { text = el.video.readyState >= 2 ? await read(el.video) : null; } catch { text = null; }
    if (!stream) return;
    if (text && parseInput(text)) {
      stopCamera();
      verifyText(text);
      return;
    }
    scanTimer = setTimeout(tick, SCAN_INTERVAL_MS);
  };
  tick();
}

const readQrPhoto = photoReader({
  zxingScript: root.dataset.zxing, zxingWasm: root.dataset.zxingWasm, jsqrScript: root.dataset.jsqr,
});

/** Read a chosen photo. The verdict of the previous QR goes at once: it must never stand under a new photo. */
async function readPhoto(file) {
  showInputError('');
  currentToken = null; // a late server answer about the previous QR is dropped (verify and confirmOnline check it)
  renderChecking();
  let found = { text: null };
  try {
    found = await readQrPhoto(file);
  } catch { /* the message below */ }
  if (found.text && parseInput(found.text)) return verifyText(found.text);
  el.result.hidden = true;
  if (found.unreadable) showInputError(gettext('Este navegador no puede abrir esa foto: elija otra o tome una nueva.'));
  else showInputError(gettext('No se encontró un código QR de certificado en la foto.'));
  return false;
}

// --- wiring ------------------------------------------------------------------------------------

function start() {
  Object.assign(state, loadLists());
  renderLists();

  el.form.addEventListener('submit', (event) => {
    event.preventDefault();
    verifyText(el.input.value);
  });
  // A pasted link verifies at once: one gesture for the officer.
  el.input.addEventListener('paste', () => setTimeout(() => {
    if (parseInput(el.input.value)) verifyText(el.input.value);
  }, 0));
  el.scan.addEventListener('click', startCamera);
  el.stop.addEventListener('click', stopCamera);
  el.photo.addEventListener('change', () => {
    if (el.photo.files && el.photo.files[0]) readPhoto(el.photo.files[0]);
    el.photo.value = '';
  });
  el.refresh.addEventListener('click', () => refreshLists());
  window.addEventListener('online', () => refreshLists());
  window.addEventListener('offline', () => { state.online = false; renderLists(); });
  window.addEventListener('hashchange', () => {
    const token = tokenFromAddress(location);
    if (token && token !== currentToken) verifyText(token, { share: false });
  });
  document.addEventListener('visibilitychange', () => { if (document.hidden) stopCamera(); });
  setInterval(renderLists, MINUTE_MS);

  refreshLists();
  const token = tokenFromAddress(location);
  if (token) verifyText(token, { share: false });
}

start();
