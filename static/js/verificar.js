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

const VERIFY_URL = '/api/v1/verify/';
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const STALE_MS = 7 * DAY_MS; // certificates.md: an older status list turns the verdict amber
const REFRESH_BEFORE_VERIFY_MS = 10 * MINUTE_MS;
const SCAN_INTERVAL_MS = 150;
const SCAN_MAX_SIDE = 960; // px; a version-15 QR filling a third of the frame keeps ~4 px/module

// --- words (Spanish first; English when the page is) -------------------------------------------

const TEXT = {
  es: {
    valid: 'VÁLIDO', expired: 'VENCIDO', suspended: 'SUSPENDIDO', revoked: 'REVOCADO',
    superseded: 'REEMPLAZADO', invalid_signature: 'FIRMA INVÁLIDA', unknown_issuer: 'EMISOR DESCONOCIDO',
    unconfirmed: 'NO CONFIRMADO',
    note_valid: 'Certificado auténtico y vigente.',
    note_expired: 'Certificado auténtico, pero venció el {date}.',
    note_suspended: 'Suspendido: el buque no debe zarpar (detención, prohibición de zarpe o deficiencia pendiente).',
    note_revoked: 'Revocado por la Prefectura: no ampara al buque.',
    note_superseded: 'Existe una revisión más reciente de este certificado: pida la vigente.',
    note_invalid_signature: 'La firma no corresponde al contenido: el certificado fue alterado o es falso.',
    note_malformed: 'El código no contiene un certificado legible: está dañado o es falso.',
    note_unknown_issuer: 'Firmado con una clave que no es de la Prefectura (clave {kid}).',
    note_issuer_mismatch: 'El certificado dice venir de {iss}, pero la clave que lo firma es de {office}.',
    note_no_keys: 'Este teléfono todavía no tiene las claves públicas de la Prefectura: conéctese a internet una vez y vuelva a verificar.',
    why_stale: 'La lista de estados guardada tiene más de 7 días: no se puede confirmar que no esté revocado ni suspendido.',
    why_list_expired: 'La lista de estados guardada ya venció: no se puede confirmar que no esté revocado ni suspendido.',
    why_no_list: 'No hay una lista de estados guardada: no se puede confirmar que no esté revocado ni suspendido.',
    why_list_bad: 'La lista de estados guardada no pasa la verificación de firma: no se puede confirmar el estado.',
    why_beyond_list: 'El certificado es más nuevo que la lista de estados guardada: actualícela para confirmarlo.',
    dates_say: 'Firma auténtica; según sus fechas, vigente hasta el {date}.',
    was_suspended: 'La lista guardada lo indicaba suspendido.',
    kind_navegabilidad: 'Navegabilidad (casco y equipo)',
    kind_seguridad: 'Seguridad (máquinas y calderas)',
    revision: 'revisión {n}',
    days_left: 'quedan {n} días', day_left: 'queda 1 día', due_today: 'vence hoy',
    days_ago: 'vencido hace {n} días', day_ago: 'vencido ayer',
    signature_ok: 'Auténtica · clave {kid}',
    lists_age: 'Listas actualizadas {age}',
    lists_none: 'Sin listas guardadas: conéctese a internet una vez para poder verificar sin conexión.',
    lists_detail: 'Claves públicas: {keys}. Lista de estados emitida {issued}.',
    lists_stale: 'La lista de estados tiene más de 7 días o venció: los resultados saldrán NO CONFIRMADO hasta actualizarla.',
    refreshing: 'Actualizando las listas…',
    refresh_failed: 'No se pudieron actualizar las listas; se usan las guardadas.',
    just_now: 'hace un momento', minutes_ago: 'hace {n} min', hours_ago: 'hace {n} h',
    day_ago_age: 'hace 1 día', days_ago_age: 'hace {n} días',
    checking: 'Verificando…',
    confirm_same: 'Confirmado en línea con el servidor de la Prefectura.',
    confirm_differs: 'El servidor de la Prefectura responde {verdict}; se muestra su resultado (sin conexión daba {local}).',
    empty_input: 'Pegue el enlace del QR o escriba el código.',
    bad_input: 'No es un enlace ni un código de certificado de Baliza.',
    camera_unavailable: 'Este navegador no permite usar la cámara aquí: pegue el enlace o lea el QR de una foto.',
    camera_failed: 'No se pudo abrir la cámara ({error}): pegue el enlace o lea el QR de una foto.',
    decoder_failed: 'No se pudo cargar el lector de QR.',
    photo_no_qr: 'No se encontró un código QR de certificado en la foto.',
  },
  en: {
    valid: 'VALID', expired: 'EXPIRED', suspended: 'SUSPENDED', revoked: 'REVOKED',
    superseded: 'SUPERSEDED', invalid_signature: 'INVALID SIGNATURE', unknown_issuer: 'UNKNOWN ISSUER',
    unconfirmed: 'NOT CONFIRMED',
    note_valid: 'Authentic and current certificate.',
    note_expired: 'Authentic certificate, but it expired on {date}.',
    note_suspended: 'Suspended: the vessel must not sail (detention, no-sailing order or open deficiency).',
    note_revoked: 'Revoked by the Prefectura: it no longer covers the vessel.',
    note_superseded: 'A newer revision of this certificate exists: ask for the current one.',
    note_invalid_signature: 'The signature does not match the content: the certificate was altered or is forged.',
    note_malformed: 'The code does not hold a readable certificate: it is damaged or forged.',
    note_unknown_issuer: 'Signed with a key that is not the Prefectura’s (key {kid}).',
    note_issuer_mismatch: 'The certificate claims to come from {iss}, but the key that signed it belongs to {office}.',
    note_no_keys: 'This phone does not have the Prefectura’s public keys yet: connect to the internet once and verify again.',
    why_stale: 'The saved status list is more than 7 days old: it cannot confirm that the certificate is not revoked or suspended.',
    why_list_expired: 'The saved status list has expired: it cannot confirm that the certificate is not revoked or suspended.',
    why_no_list: 'There is no saved status list: it cannot be confirmed that the certificate is not revoked or suspended.',
    why_list_bad: 'The saved status list fails its signature check: the status cannot be confirmed.',
    why_beyond_list: 'The certificate is newer than the saved status list: update it to confirm.',
    dates_say: 'Authentic signature; by its dates, valid until {date}.',
    was_suspended: 'The saved list showed it as suspended.',
    kind_navegabilidad: 'Seaworthiness (hull and equipment)',
    kind_seguridad: 'Safety (machinery and boilers)',
    revision: 'revision {n}',
    days_left: '{n} days left', day_left: '1 day left', due_today: 'expires today',
    days_ago: 'expired {n} days ago', day_ago: 'expired yesterday',
    signature_ok: 'Authentic · key {kid}',
    lists_age: 'Lists updated {age}',
    lists_none: 'No saved lists: connect to the internet once to be able to verify offline.',
    lists_detail: 'Public keys: {keys}. Status list issued {issued}.',
    lists_stale: 'The status list is more than 7 days old or has expired: results will be NOT CONFIRMED until it is updated.',
    refreshing: 'Updating the lists…',
    refresh_failed: 'Could not update the lists; using the saved ones.',
    just_now: 'just now', minutes_ago: '{n} min ago', hours_ago: '{n} h ago',
    day_ago_age: '1 day ago', days_ago_age: '{n} days ago',
    checking: 'Verifying…',
    confirm_same: 'Confirmed online with the Prefectura’s server.',
    confirm_differs: 'The Prefectura’s server answers {verdict}; its result is shown (offline it was {local}).',
    empty_input: 'Paste the QR link or type the code.',
    bad_input: 'This is not a Baliza certificate link or code.',
    camera_unavailable: 'This browser cannot use the camera here: paste the link or read the QR from a photo.',
    camera_failed: 'Could not open the camera ({error}): paste the link or read the QR from a photo.',
    decoder_failed: 'Could not load the QR reader.',
    photo_no_qr: 'No certificate QR code was found in the photo.',
  },
};

const LANG = document.documentElement.lang === 'en' ? 'en' : 'es';

/** The text for `key` in the page's language, with {name} placeholders filled. */
function t(key, params = {}) {
  const text = TEXT[LANG][key] ?? TEXT.es[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ''));
}

const TONES = {
  valid: 'ok', expired: 'bad', suspended: 'bad', revoked: 'bad', superseded: 'bad',
  invalid_signature: 'bad', unknown_issuer: 'bad', unconfirmed: 'warn',
};
const ICONS = { ok: '✓', bad: '✗', warn: '!' };

// --- dates -------------------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/** Today's date on this phone (local time), as YYYY-MM-DD. */
function localToday(now = new Date()) {
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

const DATE_FORMAT = new Intl.DateTimeFormat(LANG === 'en' ? 'en-GB' : 'es-PY', {
  day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC',
});

function formatDate(iso) {
  return DATE_FORMAT.format(new Date(isoToUtc(iso)));
}

function daysLeftText(validUntil, today) {
  const n = daysBetween(today, validUntil);
  if (n > 1) return t('days_left', { n });
  if (n === 1) return t('day_left');
  if (n === 0) return t('due_today');
  return n === -1 ? t('day_ago') : t('days_ago', { n: -n });
}

/** "hace 2 h": how long ago a time (ms) was. */
function ago(ms, now = Date.now()) {
  const minutes = Math.max(0, Math.floor((now - ms) / MINUTE_MS));
  if (minutes < 2) return t('just_now');
  if (minutes < 60) return t('minutes_ago', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t('hours_ago', { n: hours });
  const days = Math.floor(hours / 24);
  return days === 1 ? t('day_ago_age') : t('days_ago_age', { n: days });
}

// --- the cached lists --------------------------------------------------------------------------

// In memory first (localStorage may be full or blocked), persisted when possible.
const state = { keys: null, status: null, online: null, refreshError: false };


let refreshing = null;

/** Refresh both lists once at a time; updates the online flag and the lists panel. */
function refreshLists() {
  if (!refreshing) {
    el.listsAge.textContent = t('refreshing');
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
  if (!state.keys) return { verdict: 'unconfirmed', notes: [t('note_no_keys')], claims: null };
  const result = await verifyToken(token, state.keys.jwks);
  if (result.outcome === 'malformed') {
    return { verdict: 'invalid_signature', notes: [t('note_malformed')], claims: null };
  }
  if (result.outcome === 'invalid_signature') {
    return { verdict: 'invalid_signature', notes: [t('note_invalid_signature')], claims: null };
  }
  if (result.outcome !== 'ok') {
    return { verdict: 'unknown_issuer', notes: [t('note_unknown_issuer', { kid: result.kid })], claims: null };
  }
  const { claims, kid } = result;
  const key = findKey(state.keys.jwks, kid);
  if (key && key.office && key.office !== claims.issuer) {
    const notes = [t('note_issuer_mismatch', { iss: claims.issuer, office: key.office })];
    return { verdict: 'unknown_issuer', notes, claims: null };
  }
  const found = { claims, kid };
  const { code, problem } = await cachedStatus(claims.status_index, state.keys.jwks);
  const until = formatDate(claims.valid_until);
  if (code === 1) return { ...found, verdict: 'revoked', notes: [t('note_revoked')] };
  if (code === 3) return { ...found, verdict: 'superseded', notes: [t('note_superseded')] };
  if (claims.valid_until < localToday()) {
    return { ...found, verdict: 'expired', notes: [t('note_expired', { date: until })] };
  }
  if (problem) {
    const notes = [t(`why_${problem}`), t('dates_say', { date: until })];
    if (code === 2) notes.push(t('was_suspended'));
    return { ...found, verdict: 'unconfirmed', notes };
  }
  if (code === 2) return { ...found, verdict: 'suspended', notes: [t('note_suspended')] };
  return { ...found, verdict: 'valid', notes: [t('note_valid')] };
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
  const note = answer.verdict === 'expired' && claims
    ? t('note_expired', { date: formatDate(claims.valid_until) }) : t(`note_${answer.verdict}`);
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
  const today = localToday();
  setText('f-registration', claims.registration);
  setText('f-vessel', claims.vessel_name);
  setText('f-kind', t(`kind_${claims.kind}`));
  setText('f-number', claims.revision > 1
    ? `${claims.number} · ${t('revision', { n: claims.revision })}` : claims.number);
  setText('f-issued', formatDate(claims.issued_on));
  // Days left mean nothing on a certificate that is revoked or replaced for good.
  const final = verdict === 'revoked' || verdict === 'superseded';
  setText('f-valid', final ? formatDate(claims.valid_until)
    : `${formatDate(claims.valid_until)} (${daysLeftText(claims.valid_until, today)})`);
  const officeName = claims.office_name || OFFICES[claims.issuer];
  setText('f-office', officeName ? `${officeName} (${claims.issuer})` : claims.issuer);
  setText('f-signature', kid ? t('signature_ok', { kid }) : '—');
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
  el.word.append(icon, t(assessment.verdict));
  el.note.textContent = assessment.notes.join(' ');
  renderFacts(assessment.claims, assessment.kid, assessment.verdict);
  el.result.scrollIntoView({ block: 'start' });
}

function renderChecking() {
  el.result.hidden = false;
  el.verdict.className = 'verdict verdict-checking';
  delete el.verdict.dataset.verdict;
  el.word.textContent = t('checking');
  el.note.textContent = '';
  el.facts.hidden = true;
  el.confirm.hidden = true;
}

function renderLists() {
  const { keys, status } = state;
  root.dataset.lists = listsState();
  el.offline.hidden = state.online !== false && navigator.onLine !== false;
  if (!keys) {
    el.listsAge.textContent = state.refreshError ? t('refresh_failed') : t('lists_none');
    el.listsDetail.textContent = state.refreshError ? t('lists_none') : '';
    el.lists.classList.add('warn');
    return;
  }
  const oldest = Math.min(keys.fetched_at, status ? status.fetched_at : keys.fetched_at);
  el.listsAge.textContent = t('lists_age', { age: ago(oldest) });
  const detail = [t('lists_detail', { keys: keys.jwks.keys.length, issued: status ? ago(status.iat * 1000) : '—' })];
  const stale = listsState() !== 'fresh';
  if (stale) detail.push(t('lists_stale'));
  if (state.refreshError) detail.push(t('refresh_failed'));
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
    el.confirm.textContent = t('confirm_same');
  } else {
    render(fromServer(answer, local.kid));
    el.confirm.textContent = t('confirm_differs', { verdict: t(answer.verdict), local: t(local.verdict) });
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
    showInputError(text && text.trim() ? t('bad_input') : t('empty_input'));
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
    showInputError(t('camera_unavailable'));
    return;
  }
  let read;
  try {
    read = await qrReader();
  } catch {
    showInputError(t('decoder_failed'));
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 } },
      audio: false,
    });
  } catch (err) {
    showInputError(t('camera_failed', { error: err && err.name ? err.name : String(err) }));
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
  else showInputError(t('photo_no_qr'));
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

  if ('serviceWorker' in navigator && root.dataset.sw) {
    navigator.serviceWorker.register(root.dataset.sw, { scope: '/' }).catch(() => {});
  }
  refreshLists();
  const token = tokenFromAddress();
  if (token) verifyText(token, { share: false });
}

start();
