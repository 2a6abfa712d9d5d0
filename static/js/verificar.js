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
import { ServerAnswerError, downloadLists, fetchJson, findKey, loadLists } from './lists.js';
import { parseVerifyUrl, statusAt, verifyStatusList, verifyToken } from './verifier.js';
import { formatDay, pageLanguage } from './formats.js';
import { N_, gettext } from './i18n.js';

const VERIFY_URL = '/api/v1/verify/';
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const STALE_MS = 7 * DAY_MS; // certificates.md: an older status list turns the verdict amber
const REFRESH_BEFORE_VERIFY_MS = 10 * MINUTE_MS;
const SCAN_INTERVAL_MS = 150;
const SCAN_MAX_SIDE = 960; // px; a version-15 QR filling a third of the frame keeps ~4 px/module

// --- words (Spanish is the source; static/js/i18n.js gives the page's language) -------------

// The verdict in one word, as the server's (certificates.md).
const WORDS = {
  valid: N_('VÁLIDO'),
  expired: N_('VENCIDO'),
  suspended: N_('SUSPENDIDO'),
  revoked: N_('REVOCADO'),
  superseded: N_('REEMPLAZADO'),
  invalid_signature: N_('FIRMA INVÁLIDA'),
  unknown_issuer: N_('EMISOR DESCONOCIDO'),
  unconfirmed: N_('NO CONFIRMADO'),
};

// What a verdict means, when the server answers it.
const NOTES = {
  valid: N_('Certificado auténtico y vigente.'),
  suspended: N_('Suspendido: el buque no debe zarpar (detención, prohibición de zarpe o deficiencia pendiente).'),
  revoked: N_('Revocado por la Prefectura: no ampara al buque.'),
  superseded: N_('Existe una revisión más reciente de este certificado: pida la vigente.'),
  invalid_signature: N_('La firma no corresponde al contenido: el certificado fue alterado o es falso.'),
  unknown_issuer: N_('Firmado con una clave que no es de la Prefectura (clave {kid}).'),
};

// Why a verdict from the stored lists is NO CONFIRMADO.
const WHY = {
  stale: N_('La lista de estados guardada tiene más de 7 días: no se puede confirmar que no esté revocado ni suspendido.'),
  list_expired: N_('La lista de estados guardada ya venció: no se puede confirmar que no esté revocado ni suspendido.'),
  no_list: N_('No hay una lista de estados guardada: no se puede confirmar que no esté revocado ni suspendido.'),
  list_bad: N_('La lista de estados guardada no pasa la verificación de firma: no se puede confirmar el estado.'),
  beyond_list: N_('El certificado es más nuevo que la lista de estados guardada: actualícela para confirmarlo.'),
};

const REFRESH_FAILED = N_('No se pudieron actualizar las listas; se usan las guardadas.');
const EXPIRED_ON = N_('Certificado auténtico, pero venció el {date}.');

// The certificate's kind (certificates.md).
const KINDS = {
  navegabilidad: N_('Navegabilidad (casco y equipo)'),
  seguridad: N_('Seguridad (máquinas y calderas)'),
};

const LANG = pageLanguage();

const TONES = {
  valid: 'ok', expired: 'bad', suspended: 'bad', revoked: 'bad', superseded: 'bad',
  invalid_signature: 'bad', unknown_issuer: 'bad', unconfirmed: 'warn',
};
const ICONS = { ok: '✓', bad: '✗', warn: '!' };

// --- dates -------------------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/**
 * Today's date on the office's calendar (BALIZA_OFFICE_TZ: the law's "today" is Asunción's, as on the
 * server), as YYYY-MM-DD; the phone's own date only where this browser does not know that zone.
 */
function officeToday(now = new Date()) {
  const zone = document.getElementById('verificador')?.dataset.officeTz;
  if (zone) {
    try {
      const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
        .formatToParts(now);
      const part = (type) => parts.find((p) => p.type === type).value;
      return `${part('year')}-${part('month')}-${part('day')}`;
    } catch (error) {
      // RangeError: an unknown zone; fall through to the phone's date
    }
  }
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function isoToUtc(iso) {
  const [y, m, d] = iso.split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

/** Whole days from ISO date a to ISO date b. */
function daysBetween(a, b) {
  return Math.round((isoToUtc(b) - isoToUtc(a)) / DAY_MS);
}

function formatDate(iso) {
  return formatDay(iso, LANG);
}

function daysLeftText(validUntil, today) {
  const n = daysBetween(today, validUntil);
  if (n > 1) return gettext('quedan {n} días', { n });
  if (n === 1) return gettext('queda 1 día');
  if (n === 0) return gettext('vence hoy');
  return n === -1 ? gettext('vencido ayer') : gettext('vencido hace {n} días', { n: -n });
}

/** "hace 2 h": how long ago a time (ms) was. */
function ago(ms, now = Date.now()) {
  const minutes = Math.max(0, Math.floor((now - ms) / MINUTE_MS));
  if (minutes < 2) return gettext('hace un momento');
  if (minutes < 60) return gettext('hace {n} min', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return gettext('hace {n} h', { n: hours });
  const days = Math.floor(hours / 24);
  return days === 1 ? gettext('hace 1 día') : gettext('hace {n} días', { n: days });
}

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

function listProblem(list, now = Date.now()) {
  if (now - list.iat * 1000 > STALE_MS) return 'stale';
  if (now > list.exp * 1000) return 'list_expired';
  return null;
}

/** 'none', 'stale' or 'fresh': for the panel, and for tests waiting on the page. */
function listsState() {
  if (!state.keys || !state.status) return 'none';
  const list = { iat: state.status.iat, exp: state.status.exp };
  return listProblem(list) ? 'stale' : 'fresh';
}

let persistenceAsked = false;

/** Ask the browser not to evict the lists under storage pressure (field-lessons.md). */
function askPersistence() {
  if (persistenceAsked || !navigator.storage || !navigator.storage.persist) return;
  persistenceAsked = true;
  navigator.storage.persisted().then((done) => done || navigator.storage.persist()).catch(() => {});
}

// --- the verdict -------------------------------------------------------------------------------

/** The status code at `index` from the cached list, and why it cannot be trusted, if so. */
async function cachedStatus(index, jwks) {
  if (!state.status) return { code: null, problem: 'no_list' };
  let list;
  try {
    list = await verifyStatusList(state.status.jws, jwks);
  } catch {
    return { code: null, problem: 'list_bad' };
  }
  try {
    return { code: statusAt(list, index), problem: listProblem(list) };
  } catch {
    return { code: null, problem: 'beyond_list' };
  }
}

/**
 * The offline verdict for a token: {verdict, notes, claims, kid}.
 * Precedence as the server's (revoked > superseded > expired > suspended > valid); a revocation
 * or replacement read from an old list still stands (neither is ever undone), but "valid" and
 * "suspended" need a list younger than 7 days, or the verdict is NO CONFIRMADO.
 */
async function assess(token) {
  if (!state.keys) {
    const note = gettext('Este teléfono todavía no tiene las claves públicas de la Prefectura: '
      + 'conéctese a internet una vez y vuelva a verificar.');
    return { verdict: 'unconfirmed', notes: [note], claims: null };
  }
  const result = await verifyToken(token, state.keys.jwks);
  if (result.outcome === 'malformed') {
    const note = gettext('El código no contiene un certificado legible: está dañado o es falso.');
    return { verdict: 'invalid_signature', notes: [note], claims: null };
  }
  if (result.outcome === 'invalid_signature') {
    return { verdict: 'invalid_signature', notes: [gettext(NOTES.invalid_signature)], claims: null };
  }
  if (result.outcome !== 'ok') {
    return { verdict: 'unknown_issuer', notes: [gettext(NOTES.unknown_issuer, { kid: result.kid })], claims: null };
  }
  const { claims, kid } = result;
  const key = findKey(state.keys.jwks, kid);
  if (key && key.office && key.office !== claims.issuer) {
    const params = { iss: claims.issuer, office: key.office };
    const notes = [gettext('El certificado dice venir de {iss}, pero la clave que lo firma es de {office}.', params)];
    return { verdict: 'unknown_issuer', notes, claims: null };
  }
  const found = { claims, kid };
  const { code, problem } = await cachedStatus(claims.status_index, state.keys.jwks);
  const until = formatDate(claims.valid_until);
  if (code === 1) return { ...found, verdict: 'revoked', notes: [gettext(NOTES.revoked)] };
  if (code === 3) return { ...found, verdict: 'superseded', notes: [gettext(NOTES.superseded)] };
  if (claims.valid_until < officeToday()) {
    return { ...found, verdict: 'expired', notes: [gettext(EXPIRED_ON, { date: until })] };
  }
  if (problem) {
    const notes = [gettext(WHY[problem]),
      gettext('Firma auténtica; según sus fechas, vigente hasta el {date}.', { date: until })];
    if (code === 2) notes.push(gettext('La lista guardada lo indicaba suspendido.'));
    return { ...found, verdict: 'unconfirmed', notes };
  }
  if (code === 2) return { ...found, verdict: 'suspended', notes: [gettext(NOTES.suspended)] };
  return { ...found, verdict: 'valid', notes: [gettext(NOTES.valid)] };
}

/** The server's answer in the shape of an assessment (its certificate view as claims). */
function fromServer(answer, kid) {
  const cert = answer.certificate;
  const trusted = !['invalid_signature', 'unknown_issuer'].includes(answer.verdict);
  const claims = cert && trusted ? {
    registration: cert.registration, vessel_name: cert.vessel_name, kind: cert.kind, number: cert.number,
    revision: cert.revision, issued_on: cert.issued_on, valid_until: cert.valid_until, issuer: cert.office_code,
    office_name: cert.office_name,
  } : null;
  const meaning = answer.verdict === 'expired' && claims ? EXPIRED_ON : NOTES[answer.verdict];
  const note = meaning ? gettext(meaning, { date: claims && formatDate(claims.valid_until), kid: kid || '—' }) : '';
  return { verdict: answer.verdict, notes: [note], claims, kid: claims ? kid : null };
}

// --- the page ----------------------------------------------------------------------------------

const root = document.getElementById('verificador');
const $ = (id) => document.getElementById(id);
const el = {
  result: $('result'), verdict: $('verdict'), word: $('verdict-word'), note: $('verdict-note'),
  facts: $('facts'), confirm: $('confirm'), input: $('token-input'), form: $('manual'),
  inputError: $('input-error'), scan: $('scan'), camera: $('camera'), video: $('video'), stop: $('stop'),
  photo: $('photo'), lists: $('lists'), listsAge: $('lists-age'), listsDetail: $('lists-detail'),
  offline: $('offline'), refresh: $('refresh'),
};
const OFFICES = JSON.parse(root.dataset.offices || '{}');

function setText(id, text) {
  $(id).textContent = text;
}

function renderFacts(claims, kid, verdict) {
  el.facts.hidden = !claims;
  if (!claims) return;
  const today = officeToday();
  setText('f-registration', claims.registration);
  setText('f-vessel', claims.vessel_name);
  setText('f-kind', gettext(KINDS[claims.kind]));
  const revision = gettext('revisión {n}', { n: claims.revision });
  setText('f-number', claims.revision > 1 ? `${claims.number} · ${revision}` : claims.number);
  setText('f-issued', formatDate(claims.issued_on));
  // Days left only while the dates decide (as /v/): a suspended, revoked or replaced one has none.
  const final = verdict === 'suspended' || verdict === 'revoked' || verdict === 'superseded';
  setText('f-valid', final ? formatDate(claims.valid_until)
    : `${formatDate(claims.valid_until)} (${daysLeftText(claims.valid_until, today)})`);
  const officeName = claims.office_name || OFFICES[claims.issuer];
  setText('f-office', officeName ? `${officeName} (${claims.issuer})` : claims.issuer);
  setText('f-signature', kid ? gettext('Auténtica · clave {kid}', { kid }) : '—');
}

function render(assessment) {
  const tone = TONES[assessment.verdict];
  el.result.hidden = false;
  el.verdict.className = `verdict verdict-${tone}`;
  el.verdict.dataset.verdict = assessment.verdict;
  el.word.replaceChildren();
  const icon = document.createElement('span');
  icon.className = 'icon';
  icon.setAttribute('aria-hidden', 'true');
  icon.textContent = ICONS[tone];
  el.word.append(icon, gettext(WORDS[assessment.verdict]));
  el.note.textContent = assessment.notes.join(' ');
  renderFacts(assessment.claims, assessment.kid, assessment.verdict);
  el.result.scrollIntoView({ block: 'start' });
}

function renderChecking() {
  el.result.hidden = false;
  el.verdict.className = 'verdict verdict-checking';
  delete el.verdict.dataset.verdict;
  el.word.textContent = gettext('Verificando…');
  el.note.textContent = '';
  el.facts.hidden = true;
  el.confirm.hidden = true;
}

function renderLists() {
  const { keys, status } = state;
  root.dataset.lists = listsState();
  el.offline.hidden = state.online !== false && navigator.onLine !== false;
  if (!keys) {
    const none = gettext('Sin listas guardadas: conéctese a internet una vez para poder verificar sin conexión.');
    el.listsAge.textContent = state.refreshError ? gettext(REFRESH_FAILED) : none;
    el.listsDetail.textContent = state.refreshError ? none : '';
    el.lists.classList.add('warn');
    return;
  }
  const oldest = Math.min(keys.fetched_at, status ? status.fetched_at : keys.fetched_at);
  el.listsAge.textContent = gettext('Listas actualizadas {age}', { age: ago(oldest) });
  const counts = { keys: keys.jwks.keys.length, issued: status ? ago(status.iat * 1000) : '—' };
  const detail = [gettext('Claves públicas: {keys}. Lista de estados emitida {issued}.', counts)];
  const stale = listsState() !== 'fresh';
  if (stale) {
    detail.push(gettext('La lista de estados tiene más de 7 días o venció: '
      + 'los resultados saldrán NO CONFIRMADO hasta actualizarla.'));
  }
  if (state.refreshError) detail.push(gettext(REFRESH_FAILED));
  el.listsDetail.textContent = detail.join(' ');
  el.lists.classList.toggle('warn', stale);
}

let currentToken = null;

function listsFingerprint() {
  return JSON.stringify([state.keys && state.keys.jwks, state.status && state.status.iat]);
}

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
  let assessment = await assess(token);
  if (currentToken !== token) return;
  render(assessment);
  const age = state.keys && state.status
    ? Date.now() - Math.min(state.keys.fetched_at, state.status.fetched_at) : Infinity;
  if (online && (refreshing || age > REFRESH_BEFORE_VERIFY_MS)) {
    const before = listsFingerprint();
    await refreshLists();
    if (currentToken !== token) return;
    if (listsFingerprint() !== before) {
      assessment = await assess(token);
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
  if (currentToken !== token || !answer || !(answer.verdict in TONES)) return;
  if (answer.verdict === local.verdict) {
    el.confirm.textContent = gettext('Confirmado en línea con el servidor de la Prefectura.');
  } else {
    render(fromServer(answer, local.kid));
    const verdicts = { verdict: gettext(WORDS[answer.verdict]), local: gettext(WORDS[local.verdict]) };
    el.confirm.textContent = gettext('El servidor de la Prefectura responde {verdict}; '
      + 'se muestra su resultado (sin conexión daba {local}).', verdicts);
  }
  el.confirm.hidden = false;
}

function showInputError(message) {
  el.inputError.textContent = message;
  el.inputError.hidden = !message;
  el.input.setAttribute('aria-invalid', message ? 'true' : 'false');
}

/** A /v/ link, a bare token, or a shared /verificar link carrying #t= or ?t=. */
function parseInput(text) {
  const direct = parseVerifyUrl(text);
  if (direct) return direct;
  try {
    const url = new URL(text.trim());
    const shared = new URLSearchParams(url.hash.slice(1)).get('t') || url.searchParams.get('t');
    return shared ? parseVerifyUrl(shared) : null;
  } catch {
    return null;
  }
}

/** Verify scanned or typed text; false when it is neither a /v/ link nor a token. */
function verifyText(text, { share = true } = {}) {
  const parsed = parseInput(text || '');
  if (!parsed) {
    showInputError(text && text.trim() ? gettext('No es un enlace ni un código de certificado de Baliza.')
      : gettext('Pegue el enlace del QR o escriba el código.'));
    return false;
  }
  showInputError('');
  el.input.value = text.trim();
  if (share && location.pathname === '/verificar') {
    history.replaceState(null, '', `${location.pathname}${location.search}#t=${parsed.token}`);
  }
  verify(parsed.token);
  return true;
}

/** A token handed over in the address: #t=, ?t= or /v/{token} (the offline copy of the QR link). */
function tokenFromAddress() {
  const hash = new URLSearchParams(location.hash.slice(1)).get('t');
  const query = new URLSearchParams(location.search).get('t');
  const path = /^\/v\/([A-Za-z2-7]+)\/?$/.exec(location.pathname);
  return hash || query || (path && path[1]) || null;
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

async function readPhoto(file) {
  showInputError('');
  let text = null;
  try {
    const read = await qrReader();
    const bitmap = await createImageBitmap(file);
    text = await read(bitmap);
    bitmap.close();
  } catch {
    text = null;
  }
  if (text && parseInput(text)) verifyText(text);
  else showInputError(gettext('No se encontró un código QR de certificado en la foto.'));
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
    const token = tokenFromAddress();
    if (token && token !== currentToken) verifyText(token, { share: false });
  });
  document.addEventListener('visibilitychange', () => { if (document.hidden) stopCamera(); });
  setInterval(renderLists, MINUTE_MS);

  refreshLists();
  const token = tokenFromAddress();
  if (token) verifyText(token, { share: false });
}

start();
