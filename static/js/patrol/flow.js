// The patrol check's rules on the phone, pure (node tests them): which list a craft gets, what "todo cumple"
// answers, a count's step, which outcomes the answers allow (as inspection/patrol/checks.py check_outcome), and
// the bodies the outbox sends (the API's names, docs/api.md).
import { answerProblems, itemBound } from '../tablet/rules.js';

export const OUTCOMES = ['sin_novedad', 'observaciones', 'infraccion', 'retencion'];
export const LISTS = ['menores', 'conducta', 'documentacion'];
// The verdicts the server records with a check (inspection/certificates/operations.py VERDICTS); the phone's own
// "unconfirmed" and "malformed" are not a certificate's word and travel as none.
export const VERDICTS = ['valid', 'expired', 'suspended', 'revoked', 'superseded', 'mismatch', 'invalid_signature', 'unknown_issuer'];

/** The local key of a check in the device's stores: its client id, apart from the tablet's inspection ids. */
export const checkKey = (clientId) => `patrol:${clientId}`;

/**
 * The lists a craft may be checked with, from the kit the page carries (or a vessel's, fetched with signal):
 * [{kind, items} | {kind, exemption}], the applicable ones first in LISTS order.
 */
export function listChoices(lists) {
  return LISTS.filter((kind) => lists && lists[kind]).map((kind) => ({ kind, ...lists[kind] }));
}

/**
 * A profile of the kit (inspection/patrol/kit.py patrol_kit) as lists: {kind: {items} | {exemption}}. The server
 * decided which items apply and their bounds for the vessels of that profile; the phone only looks them up.
 */
export function listsOf(kit, profile) {
  const found = kit.profiles[profile];
  if (!found) return null;
  return Object.fromEntries(Object.entries(found).map(([kind, index]) => {
    const list = kit.lists[index];
    return [kind, list.exemption !== undefined ? { exemption: kit.exemptions[list.exemption] }
      : { items: list.items.map((item) => kit.items[item]) }];
  }));
}

/** A registration as the registry compares it (registry/vessels.py registration_key): spaces and case aside. */
export const registrationKey = (text) => String(text || '').replace(/\s+/g, '').toUpperCase();

/** The kit's vessel of a registration (a scanned certificate's claim), or null. */
export function vesselByRegistration(kit, registration) {
  const key = registrationKey(registration);
  return (key && (kit.vessels || []).find((vessel) => registrationKey(vessel.registration) === key)) || null;
}

const folded = (text) => String(text || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** The kit's vessels whose registration (spaces and case aside) or name contains `text`: the search without signal. */
export function findVessels(kit, text, limit = 8) {
  const wanted = folded(text.trim());
  const key = registrationKey(text);
  if (wanted.length < 2) return [];
  return (kit.vessels || []).filter((vessel) => registrationKey(vessel.registration).includes(key)
    || folded(vessel.label).includes(wanted)).slice(0, limit);
}

/** The list to offer first: a small craft's own (menores) when it applies, else conduct under way. */
export function firstList(lists) {
  const open = listChoices(lists).filter((choice) => choice.items);
  return (open.find((choice) => choice.kind === 'menores') || open.find((choice) => choice.kind === 'conducta') || open[0] || {}).kind || null;
}

/** Whether the officer counts for this item (it has a bound, or will have one once the server knows the vessel). */
export const isCounted = (item) => Boolean(itemBound(item) || item.counted);

/** "Todo cumple": every yes/no item not answered yet passes; counts are left for the officer to make. */
export function passAll(items, answers, now) {
  const next = { ...answers };
  items.forEach((item) => {
    if (!next[item.id] && !isCounted(item)) next[item.id] = { result: 'pass', observed: null, note: '', recorded_at: now };
  });
  return next;
}

/** A count stepped by `delta` (never below 0); it passes within the item's bound and fails outside it. */
export function stepCount(item, answer, delta, now) {
  const before = answer && answer.observed !== null && answer.observed !== undefined ? Number(answer.observed) : 0;
  const observed = Math.max(0, before + delta);
  const bound = itemBound(item);
  const within = bound ? bound.within(observed, bound.value) : true;
  return { result: within ? 'pass' : 'fail', observed, note: (answer && answer.note) || '', recorded_at: now };
}

/** The items answered "no cumple", in the list's order. */
export function failedItems(items, answers) {
  return items.filter((item) => answers[item.id] && answers[item.id].result === 'fail');
}

/** The outcomes the answers allow, as the server checks them: no failure for "sin novedad"; a failure or a note
 * for "observaciones"; a failure for "infracción"; a failure whose law allows detaining for "retención". */
export function allowedOutcomes(items, answers, note = '') {
  const failed = failedItems(items, answers);
  return OUTCOMES.filter((outcome) => {
    if (outcome === 'sin_novedad') return !failed.length;
    if (outcome === 'observaciones') return failed.length > 0 || note.trim() !== '';
    if (outcome === 'infraccion') return failed.length > 0;
    return failed.some((item) => item.detainable);
  });
}

/** The outcome to preselect: none failed, "sin novedad"; else "infracción". */
export const suggestedOutcome = (items, answers) => (failedItems(items, answers).length ? 'infraccion' : 'sin_novedad');

/** Items whose answer the server would refuse (a count missing or outside its bound), with the problems. */
export function unsendable(items, answers) {
  return items.filter((item) => answers[item.id])
    .map((item) => ({ item, problems: answerProblems(item, answers[item.id]) }))
    .filter((found) => found.problems.length);
}

/** The body of POST /api/v1/patrol-checks for a check begun on the phone. */
export function startBody(check) {
  const body = { client_id: check.client_id, checked_at: check.checked_at, checklist: check.checklist,
                 place: check.place || null, latitude: check.latitude ?? null, longitude: check.longitude ?? null };
  if (check.vessel_id) body.vessel_id = check.vessel_id;
  else if (check.craft) body.craft = { marks: check.craft.marks || '', type: check.craft.type, length_m: Number(check.craft.length_m) };
  if (check.verification) body.verification = check.verification;
  return body;
}

/** A fine as the law prints it ({min, max}), in words; '' when the law sets none. */
export function fineWords(fine, gettext) {
  if (!fine || fine.min === null || fine.min === undefined) return '';
  return fine.max !== null && fine.max !== undefined && fine.max !== fine.min
    ? gettext('multa de {min} a {max}', { min: fine.min, max: fine.max }) : gettext('multa de {min}', { min: fine.min });
}

/** The verifier's hand-over in the page's address (?t=, &verdict=, &age=): the scanned token and what it said. */
export function scannedFrom(search) {
  const params = new URLSearchParams(search);
  const token = params.get('t');
  if (!token) return null;
  const age = Number.parseInt(params.get('age'), 10);
  const verdict = VERDICTS.includes(params.get('verdict')) ? params.get('verdict') : null;
  return { token, verdict, list_age_s: Number.isFinite(age) && age >= 0 ? age : null };
}
