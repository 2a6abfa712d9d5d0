// The inspection screen's computations without the DOM: topics, progress, item status lines, answer changes, closing checks.
import { answerProblems, needsPhoto } from './rules.js';
import { gettext } from '../i18n.js';

/** Whether the inspection was started (here, or on the server before it was taken aboard). */
export const isStarted = (pkg, work) => Boolean(work.started_at) || pkg.package.inspection.status === 'in_progress';

/** Whether it was closed or interrupted on this tablet. */
export const isClosed = (work) => Boolean(work.closing || work.interrupt);

/** The key of an item's topic (checklist and topic: two checklists may share a topic name). */
export const topicKey = (item) => `${item.checklist || ''}/${item.topic}`;

/**
 * An item as a reader of `lang` sees it. A pinned item carries both languages whatever language it was taken
 * aboard in (`title_en` beside a Spanish title, `title_es` beside an English one), so switching the tablet's
 * language offline switches the checklist's words too.
 */
export function inLanguage(item, lang) {
  const pick = (field) => item[`${field}_${lang}`] ?? item[field];
  return { ...item, title: pick('title'), unit: pick('unit'), topic_title: pick('topic_title'),
           restriction_label: pick('restriction_label') };
}

/**
 * The items grouped by topic, in the order they come: [{key, title, checklist, items}]. A title two checklists
 * share ("Certificados" in seguridad and in documentacion) is followed by its checklist's name, `named(checklist)`.
 */
export function topicGroups(items, named = (checklist) => checklist) {
  const found = new Map();
  items.forEach((item) => {
    const key = topicKey(item);
    if (!found.has(key)) found.set(key, { key, title: item.topic_title, checklist: item.checklist, items: [] });
    found.get(key).items.push(item);
  });
  const groups = [...found.values()];
  const shared = (title) => groups.filter((g) => g.title === title).length > 1;
  return groups.map((g) => (g.checklist && shared(g.title) ? { ...g, title: `${g.title} · ${named(g.checklist)}` } : g));
}

/** Whether the item's answer is complete (a result the law's checks accept). */
export const isDone = (item, answer) => Boolean(answer && answer.result && !answerProblems(item, answer).length);

/** Answered items overall and per topic: {answered, total, topics: Map key -> {done, total}}. */
export function progress(items, answers) {
  let answered = 0;
  const topics = new Map();
  items.forEach((item) => {
    const done = isDone(item, answers.get(item.id));
    if (done) answered += 1;
    const t = topics.get(topicKey(item)) || { done: 0, total: 0 };
    t.total += 1; t.done += done ? 1 : 0;
    topics.set(topicKey(item), t);
  });
  return { answered, total: items.length, topics };
}

/** The items still to answer or complete, in order (for "next unanswered"). */
export const openItems = (items, answers) => items.filter((item) => !isDone(item, answers.get(item.id)));

/**
 * An item's card: {state (its result or 'unanswered'), actionHidden, text, tone, needsPhoto}, from its answer
 * (with its sync state and the server's reason) and how many photos it has.
 */
export function itemStatus(item, answer, photoCount) {
  const a = answer;
  const problems = a ? answerProblems(item, a) : [];
  const params = { required: item.required, maximum: item.maximum, observed: a && a.observed };
  let text;
  if (!a || !a.result) text = '';
  else if (problems.length) text = problems.map((m) => gettext(m, params)).join(' ');
  else if (a.state === 'sent') text = gettext('✓ Guardado y enviado');
  else if (a.state === 'failed') text = gettext('Rechazado por el servidor: {reason}', { reason: a.reason || '' });
  else text = gettext('Guardado en la tableta; pendiente de envío');
  let tone = problems.length || (a && a.state === 'failed') ? 'bad' : (a && a.state === 'sent' ? 'ok' : 'muted');
  const needs = needsPhoto(item, a, photoCount);
  if (needs) {
    text = `${text} · ${gettext('Falta la foto de evidencia')}`;
    tone = 'warn';
  }
  return { state: a && a.result ? a.result : 'unanswered', actionHidden: !(a && a.result === 'fail'), text, tone, needsPhoto: needs };
}

/** Whether the values read from a card (and the item's photos) differ from the stored answer. */
export function answerChanged(before, values, photos) {
  return !(before && before.result === values.result && (before.observed ?? null) === values.observed
    && (before.note || '') === values.note && (before.action || null) === values.action
    && JSON.stringify(before.photos || []) === JSON.stringify(photos));
}

/** The answer to keep for the card's values: 'pending' (to queue) when the law's checks pass, else 'draft'. */
export function newAnswer(item, { inspectionId, clientId, values, photos, recordedAt }) {
  const answer = { inspection_id: inspectionId, item_id: item.id, client_id: clientId, ...values, photos,
                   recorded_at: recordedAt, state: 'draft', reason: null };
  if (values.result && !answerProblems(item, answer).length) answer.state = 'pending';
  return answer;
}

/** What the closing form still lacks besides the items: both names and both drawn signatures. */
export function closingMissing({ signature, master, signatures }) {
  const missing = [];
  if (signature.length < 2) missing.push(gettext('Escriba el nombre completo del inspector.'));
  if (master.length < 2) missing.push(gettext('Escriba el nombre del capitán o patrón.'));
  if (!signatures.inspector) missing.push(gettext('Falta la firma del inspector.'));
  if (!signatures.master) missing.push(gettext('Falta la firma del capitán o patrón.'));
  return missing;
}

/** A photo's state in words. */
export function photoLabel(state) {
  if (state === 'sent') return gettext('enviada');
  return state === 'failed' ? gettext('rechazada') : gettext('pendiente');
}

/** The item's photos on this device plus those that reached the server from another session (as sent). */
export function withRemotePhotos(byItem, remote) {
  const merged = new Map([...byItem].map(([itemId, list]) => [itemId, [...list]]));
  (remote || []).forEach((ph) => {
    const list = merged.get(ph.item_id) || [];
    if (!list.some((x) => x.sha256 === ph.sha256)) list.push({ ...ph, state: 'sent', remote: true });
    merged.set(ph.item_id, list);
  });
  return merged;
}
