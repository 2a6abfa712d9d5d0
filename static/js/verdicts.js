// The police verifier's verdicts and the words shown for them, pure: the lists, today and now are passed in.
//
// Genuine or forged; current, expired, suspended, revoked or replaced; confirmed or not by a fresh status
// list. verificar.js wires it to the page; node tests it.
import { findKey } from './lists.js';
import { parseVerifyUrl, pathSegment, statusAt, verifyStatusList, verifyToken } from './verifier.js';
import { formatDay, formatMoment, formatTime } from './formats.js';
import { N_, gettext } from './i18n.js';

export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
// Past this age a verdict from the stored lists is shown as such (amber, with words): the server signs its
// status list for a day (api.py STATUS_LIST_TTL, "refresh daily when online") and detentions, prohibitions
// de zarpe and revocations are decided through the working day, so lists older than a day have missed at
// least a whole day of them. A VÁLIDO read from them is no longer a plain green one.
export const LISTS_OLD_MS = 24 * HOUR_MS;
export const STALE_MS = 7 * DAY_MS; // certificates.md: an older status list turns the verdict amber
export const REFRESH_BEFORE_VERIFY_MS = 10 * MINUTE_MS;

// --- words (Spanish is the source; static/js/i18n.js gives the page's language) -------------

// The verdict in one word, as the server's (certificates.md).
export const WORDS = {
  valid: N_('VÁLIDO'),
  expired: N_('VENCIDO'),
  suspended: N_('SUSPENDIDO'),
  revoked: N_('REVOCADO'),
  superseded: N_('REEMPLAZADO'),
  mismatch: N_('NO COINCIDE CON EL REGISTRO'),
  invalid_signature: N_('FIRMA INVÁLIDA'),
  unknown_issuer: N_('EMISOR DESCONOCIDO'),
  unconfirmed: N_('NO CONFIRMADO'),
  malformed: N_('CÓDIGO ILEGIBLE'),
};

// What a verdict means, when the server answers it (mismatch only the server can: it holds the record).
export const NOTES = {
  valid: N_('Certificado auténtico y vigente.'),
  suspended: N_('Suspendido: el buque no debe zarpar (detención, prohibición de zarpe o deficiencia pendiente).'),
  revoked: N_('Revocado por la Prefectura: no ampara al buque.'),
  superseded: N_('Existe una revisión más reciente de este certificado: pida la vigente.'),
  mismatch: N_('El código lleva la firma de la Prefectura pero no coincide con el certificado registrado: '
    + 'puede ser falso. No lo acepte.'),
  invalid_signature: N_('La firma no corresponde al contenido: el certificado fue alterado o es falso.'),
  unknown_issuer: N_('Firmado con una clave que no es de la Prefectura (clave {kid}).'),
  malformed: N_('El código QR no contiene un certificado legible.'),
};

// Why a verdict from the stored lists is NO CONFIRMADO.
export const WHY = {
  stale: N_('La lista de estados guardada tiene más de 7 días: no se puede confirmar que no esté revocado ni suspendido.'),
  list_expired: N_('La lista de estados guardada ya venció: no se puede confirmar que no esté revocado ni suspendido.'),
  no_list: N_('No hay una lista de estados guardada: no se puede confirmar que no esté revocado ni suspendido.'),
  list_bad: N_('La lista de estados guardada no pasa la verificación de firma: no se puede confirmar el estado.'),
  beyond_list: N_('El certificado es más nuevo que la lista de estados guardada: actualícela para confirmarlo.'),
};

export const REFRESH_FAILED = N_('No se pudieron actualizar las listas; se usan las guardadas.');
const EXPIRED_ON = N_('Certificado auténtico, pero venció el {date}.');
const RECORD_FACTS = N_('Estos son los datos del certificado registrado con ese número, no los del código.');
const RESTRICTION = N_('Restricción: {restriction}');
// A genuine signature in the form certificates signed before low-S signing carry (signing.py): the server accepts
// it only as the very token its record stores, which only the server can tell; its twin of a new token is refused.
const HIGH_S = N_('La firma es auténtica, pero en la forma de los certificados más antiguos: '
  + 'solo el servidor puede confirmar que es el código emitido. Verifíquelo con conexión.');
const OLD_LISTS = N_('Listas de hace más de {hours} horas: una suspensión o revocación posterior no figura en ellas. '
  + 'Actualícelas con conexión.');

// The certificate's kind (certificates.md).
const KINDS = {
  navegabilidad: N_('Navegabilidad (casco y equipo)'),
  seguridad: N_('Seguridad (máquinas y calderas)'),
};

export const TONES = {
  valid: 'ok', expired: 'bad', suspended: 'bad', revoked: 'bad', superseded: 'bad', mismatch: 'bad',
  invalid_signature: 'bad', unknown_issuer: 'bad', unconfirmed: 'warn', malformed: 'bad',
};
const ICONS = { ok: '✓', 'ok-old': '✓', bad: '✗', warn: '!' };

// --- dates -------------------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/**
 * The date of `now` (a Date) on the office's calendar (`zone`, BALIZA_OFFICE_TZ: the law's "today" is
 * Asunción's, as on the server), as YYYY-MM-DD; the phone's own date where that zone is unknown or absent.
 */
export function officeToday(now, zone) {
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
export function daysBetween(a, b) {
  return Math.round((isoToUtc(b) - isoToUtc(a)) / DAY_MS);
}

export function daysLeftText(validUntil, today) {
  const n = daysBetween(today, validUntil);
  if (n > 1) return gettext('quedan {n} días', { n });
  if (n === 1) return gettext('queda 1 día');
  if (n === 0) return gettext('vence hoy');
  return n === -1 ? gettext('vencido ayer') : gettext('vencido hace {n} días', { n: -n });
}

/** "hace 2 h": how long before `now` a time (both ms) was. */
export function ago(ms, now) {
  const minutes = Math.max(0, Math.floor((now - ms) / MINUTE_MS));
  if (minutes < 2) return gettext('hace un momento');
  if (minutes < 60) return gettext('hace {n} min', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return gettext('hace {n} h', { n: hours });
  const days = Math.floor(hours / 24);
  return days === 1 ? gettext('hace 1 día') : gettext('hace {n} días', { n: days });
}

// --- the cached lists --------------------------------------------------------------------------

/** Why a status list ({iat, exp} in seconds) cannot confirm a verdict at `now` (ms): 'stale', 'list_expired' or null. */
export function listProblem(list, now) {
  if (now - list.iat * 1000 > STALE_MS) return 'stale';
  if (now > list.exp * 1000) return 'list_expired';
  return null;
}

/** 'none', 'stale' or 'fresh': for the panel, and for tests waiting on the page. */
export function listsState({ keys, status }, now) {
  if (!keys || !status) return 'none';
  return listProblem({ iat: status.iat, exp: status.exp }, now) ? 'stale' : 'fresh';
}

/** How long ago the older of the two lists arrived (ms); Infinity without both. */
export function listsAge({ keys, status }, now) {
  return keys && status ? now - Math.min(keys.fetched_at, status.fetched_at) : Infinity;
}

/** The lists panel: {state, age, detail, warn} from the stored lists and whether the last refresh failed. */
export function listsView({ keys, status, refreshError }, now) {
  if (!keys) {
    const none = gettext('Sin listas guardadas: conéctese a internet una vez para poder verificar sin conexión.');
    return { state: listsState({ keys, status }, now), age: refreshError ? gettext(REFRESH_FAILED) : none,
             detail: refreshError ? none : '', warn: true };
  }
  const oldest = Math.min(keys.fetched_at, status ? status.fetched_at : keys.fetched_at);
  const counts = { keys: keys.jwks.keys.length, issued: status ? ago(status.iat * 1000, now) : '—' };
  const detail = [gettext('Claves públicas: {keys}. Lista de estados emitida {issued}.', counts)];
  const state = listsState({ keys, status }, now);
  const stale = state !== 'fresh';
  if (stale) {
    detail.push(gettext('La lista de estados tiene más de 7 días o venció: '
      + 'los resultados saldrán NO CONFIRMADO hasta actualizarla.'));
  }
  if (refreshError) detail.push(gettext(REFRESH_FAILED));
  return { state, age: gettext('Listas actualizadas {age}', { age: ago(oldest, now) }), detail: detail.join(' '), warn: stale };
}

// --- the verdict -------------------------------------------------------------------------------

/** The status code at `index` from the stored list ({jws} or null), and why it cannot be trusted, if so. */
export async function cachedStatus(stored, index, jwks, now) {
  if (!stored) return { code: null, problem: 'no_list' };
  let list;
  try {
    list = await verifyStatusList(stored.jws, jwks);
  } catch {
    return { code: null, problem: 'list_bad' };
  }
  return statusFromList(list, index, now);
}

/** The code at `index` of a verified list ({statuses, iat, exp}), and why it cannot be trusted, if so. */
export function statusFromList(list, index, now) {
  try {
    const countersign = countersignAt(list, index);
    return { code: statusAt(list, index), problem: listProblem(list, now), ...(countersign ? { countersign } : {}) };
  } catch {
    return { code: null, problem: 'beyond_list' };
  }
}

/** Art. 221 from a verified list: {state: 'countersigned', on} or {state: 'pending', due}, or null (not reviewed). */
export function countersignAt(list, index) {
  const found = list.countersign || {};
  const signed = (found.signed || {})[String(index)];
  if (typeof signed === 'string') return { state: 'countersigned', on: signed };
  const due = (found.pending || {})[String(index)];
  if (typeof due === 'string') return { state: 'pending', due };
  return null;
}

/** "Refrendado el 3 dic. 2026" / "Pendiente de refrendo (plazo hasta el …)" / '' for a kind nobody countersigns. */
export function countersignText(countersign, today, lang) {
  if (!countersign) return '';
  if (countersign.state === 'countersigned') {
    return gettext('Refrendado el {date} (art. 221)', { date: formatDay(countersign.on, lang) });
  }
  const due = formatDay(countersign.due, lang);
  return countersign.due < today ? gettext('Pendiente de refrendo: plazo vencido el {date}', { date: due })
    : gettext('Pendiente de refrendo (plazo hasta el {date})', { date: due });
}

/**
 * The offline verdict {verdict, notes, claims, kid} from what was found: whether the phone has keys,
 * the token's check ({outcome, claims, kid}), the signing key's entry, the status ({code, problem}) and today.
 * Precedence as the server's (revoked > superseded > expired > suspended > valid); a revocation
 * or replacement read from an old list still stands (neither is ever undone), but "valid" and
 * "suspended" need a list younger than 7 days, or the verdict is NO CONFIRMADO.
 */
export function decide({ hasKeys, result, key, status, today, lang }) {
  if (!hasKeys) {
    const note = gettext('Este teléfono todavía no tiene las claves públicas de la Prefectura: '
      + 'conéctese a internet una vez y vuelva a verificar.');
    return { verdict: 'unconfirmed', notes: [note], claims: null };
  }
  if (result.outcome === 'malformed') {
    // CÓDIGO ILEGIBLE, as /v/{token} answers any encoding but the one issued (a 400).
    return { verdict: 'malformed', notes: [gettext(NOTES.malformed)], claims: null };
  }
  if (result.outcome === 'invalid_signature') {
    return { verdict: 'invalid_signature', notes: [gettext(NOTES.invalid_signature)], claims: null };
  }
  if (result.outcome !== 'ok' && result.outcome !== 'high_s') {
    return { verdict: 'unknown_issuer', notes: [gettext(NOTES.unknown_issuer, { kid: result.kid })], claims: null };
  }
  const { claims, kid } = result;
  if (key && key.office && key.office !== claims.issuer) {
    const params = { iss: claims.issuer, office: key.office };
    const notes = [gettext('El certificado dice venir de {iss}, pero la clave que lo firma es de {office}.', params)];
    return { verdict: 'unknown_issuer', notes, claims: null };
  }
  const found = { claims: status && status.countersign ? { ...claims, countersign: status.countersign } : claims, kid };
  if (result.outcome === 'high_s') return { ...found, verdict: 'unconfirmed', notes: [gettext(HIGH_S)] };
  const { code, problem } = status;
  const until = formatDay(claims.valid_until, lang);
  if (code === 1) return { ...found, verdict: 'revoked', notes: [gettext(NOTES.revoked)] };
  if (code === 3) return { ...found, verdict: 'superseded', notes: [gettext(NOTES.superseded)] };
  if (claims.valid_until < today) {
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

/**
 * The offline verdict for a token, from the stored lists ({keys, status}), today's date and now (ms), with
 * `lists_at`: when the lists it rests on were current (the older of the keys' arrival and the status list's
 * issue), shown under the verdict. CÓDIGO ILEGIBLE rests on no list and carries none.
 */
export async function assess(token, { keys, status }, { today, now, lang }) {
  if (!keys) return decide({ hasKeys: false });
  const result = await verifyToken(token, keys.jwks);
  const listsAt = status ? Math.min(keys.fetched_at, status.iat * 1000) : keys.fetched_at;
  const dated = (assessment) => (assessment.verdict === 'malformed' ? assessment : { ...assessment, lists_at: listsAt });
  if (result.outcome !== 'ok' && result.outcome !== 'high_s') return dated(decide({ hasKeys: true, result }));
  const key = findKey(keys.jwks, result.kid);
  if (key && key.office && key.office !== result.claims.issuer) return dated(decide({ hasKeys: true, result, key }));
  const found = await cachedStatus(status, result.claims.status_index, keys.jwks, now);
  return dated(decide({ hasKeys: true, result, key, status: found, today, lang }));
}

/**
 * The server's answer in the shape of an assessment (its certificate view as claims). On a mismatch the view
 * is the record's, shown as such, and the token's signature is not called authentic.
 */
export function fromServer(answer, kid, lang) {
  const cert = answer.certificate;
  const trusted = !['invalid_signature', 'unknown_issuer'].includes(answer.verdict);
  const claims = cert && trusted ? {
    registration: cert.registration, vessel_name: cert.vessel_name, kind: cert.kind, number: cert.number,
    revision: cert.revision, issued_on: cert.issued_on, valid_until: cert.valid_until, issuer: cert.office_code,
    office_name: cert.office_name, restrictions: (cert.restrictions || []).map((r) => r.code),
    restriction_labels: Object.fromEntries((cert.restrictions || []).map((r) => [r.code, restrictionText(r)])),
    countersign: cert.countersign === 'countersigned' ? { state: 'countersigned', on: cert.countersigned_on }
      : cert.countersign === 'pending' ? { state: 'pending', due: cert.countersign_due_on } : null,
  } : null;
  const meaning = answer.verdict === 'expired' && claims ? EXPIRED_ON : NOTES[answer.verdict];
  const note = meaning ? gettext(meaning, { date: claims && formatDay(claims.valid_until, lang), kid: kid || '—' }) : '';
  if (answer.verdict !== 'mismatch') return { verdict: answer.verdict, notes: [note], claims, kid: claims ? kid : null };
  return { verdict: 'mismatch', notes: claims ? [note, gettext(RECORD_FACTS)] : [note], claims, kid: null };
}

/**
 * What the server's confirmation does to the verdict shown: null when its answer is unusable, else
 * {shown, text}: `shown` the assessment to show now (null: keep the local one) and the line under it.
 */
export function confirmation(answer, local, lang) {
  if (!answer || !(answer.verdict in TONES)) return null;
  if (answer.verdict === local.verdict) {
    return { shown: null, text: gettext('Confirmado en línea con el servidor de la Prefectura.') };
  }
  const verdicts = { verdict: gettext(WORDS[answer.verdict]), local: gettext(WORDS[local.verdict]) };
  return { shown: fromServer(answer, local.kid, lang),
           text: gettext('El servidor de la Prefectura responde {verdict}; '
             + 'se muestra su resultado (sin conexión daba {local}).', verdicts) };
}

// --- what the page shows -----------------------------------------------------------------------

/**
 * The verdict box: {tone, icon, word, note, age, old}. With `now` (ms), a verdict from the stored lists says
 * when they were current, on the office's clock (`zone`); past LISTS_OLD_MS that line warns, and a VÁLIDO
 * turns amber ('ok-old') instead of green.
 */
export function verdictView(assessment, { now, zone, lang } = {}) {
  const dated = assessment.lists_at != null && now != null;
  const old = dated && now - assessment.lists_at > LISTS_OLD_MS;
  const plain = TONES[assessment.verdict];
  const tone = old && plain === 'ok' ? 'ok-old' : plain;
  const age = dated ? [listsMomentText(assessment.lists_at, now, zone, lang)] : [];
  if (old) age.push(gettext(OLD_LISTS, { hours: LISTS_OLD_MS / HOUR_MS }));
  return { tone, icon: ICONS[tone], word: gettext(WORDS[assessment.verdict]), note: assessment.notes.join(' '),
           age: age.join(' '), old };
}

/** "Según las listas de hoy 14:05" / "de ayer 18:30" / "del 3 jun. 2026, 09:15": when `at` (ms) was, seen at `now`. */
export function listsMomentText(at, now, zone, lang = 'es') {
  const time = formatTime(at, lang, zone);
  const back = daysBetween(officeToday(new Date(at), zone), officeToday(new Date(now), zone));
  if (back === 0) return gettext('Según las listas de hoy {time}.', { time });
  if (back === 1) return gettext('Según las listas de ayer {time}.', { time });
  return gettext('Según las listas del {moment}.', { moment: formatMoment(new Date(at).toISOString(), lang, zone) });
}

/** A restriction from the server's answer as the page writes it: its words, then its source and article. */
function restrictionText({ label, source, article }) {
  return article ? `${label} (${source}, ${gettext('art.')} ${article})` : label;
}

/**
 * The restrictions the certificate carries instead of a detention (claim -7), one line: the words the server
 * gave, else the page's own list (`restrictions`, code -> words, from checklists/restrictions.toml), else the code.
 */
export function restrictionsText(claims, restrictions = {}) {
  const codes = claims.restrictions || [];
  if (!codes.length) return '';
  const words = codes.map((code) => (claims.restriction_labels || {})[code] || restrictions[code] || code);
  return gettext(RESTRICTION, { restriction: words.join('; ') });
}

/** The certificate's facts as the page lists them, or null when no claim can be shown. */
export function factsView(claims, kid, verdict, { today, offices, lang, restrictions }) {
  if (!claims) return null;
  const revision = gettext('revisión {n}', { n: claims.revision });
  // Days left only while the dates decide (as /v/): a suspended, revoked, replaced or mismatched one has none.
  const final = ['suspended', 'revoked', 'superseded', 'mismatch'].includes(verdict);
  const valid = formatDay(claims.valid_until, lang);
  const officeName = claims.office_name || offices[claims.issuer];
  return {
    'f-registration': claims.registration,
    'f-vessel': claims.vessel_name,
    'f-kind': gettext(KINDS[claims.kind]),
    'f-number': claims.revision > 1 ? `${claims.number} · ${revision}` : claims.number,
    'f-issued': formatDay(claims.issued_on, lang),
    'f-valid': final ? valid : `${valid} (${daysLeftText(claims.valid_until, today)})`,
    'f-office': officeName ? `${officeName} (${claims.issuer})` : claims.issuer,
    'f-signature': kid ? gettext('Auténtica · clave {kid}', { kid }) : '—',
    'f-restrictions': restrictionsText(claims, restrictions),
    'f-countersign': countersignText(claims.countersign, today, lang),
  };
}

// --- what the officer typed or scanned ---------------------------------------------------------

/** A /v/ link, a bare token, or a shared /verificar link carrying #t= or ?t=; null for anything else. */
export function parseInput(text) {
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

/** Why typed text cannot be verified, or null when it can. */
export function inputProblem(text) {
  if (parseInput(text || '')) return null;
  return text && text.trim() ? gettext('No es un enlace ni un código de certificado de Baliza.')
    : gettext('Pegue el enlace del QR o escriba el código.');
}

/** A token handed over in the address ({hash, search, pathname}): #t=, ?t= or /v/{token} (the offline copy of the QR link). */
export function tokenFromAddress({ hash, search, pathname }) {
  const fromHash = new URLSearchParams(hash.slice(1)).get('t');
  const query = new URLSearchParams(search).get('t');
  const path = /^\/v\/([^/]+)\/?$/.exec(pathname);
  return fromHash || query || (path && pathSegment(path[1])) || null;
}
