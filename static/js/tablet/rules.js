// The law's checks on one answer, as the server makes them (inspection/inspections/operations.py check_answer),
// so the tablet says at once what is missing instead of learning it at sync. Pure: node tests it.
import { N_ } from '../i18n.js';

// The limits an item may set on the observed count (one at most), as inspection/inspections/outcomes.py BOUNDS.
export const BOUNDS = [
  { name: 'required', label: N_('Requerido'), within: (observed, bound) => observed >= bound,
    missing: N_('Indique la cantidad observada (se requieren {required}).'),
    outside: N_('Se observaron {observed} y se requieren {required}: el ítem no puede aprobarse.') },
  // Ley 928 art. 184: at most the passengers the Prefectura allows.
  { name: 'maximum', label: N_('Máximo'), within: (observed, bound) => observed <= bound,
    missing: N_('Indique la cantidad observada (el máximo es {maximum}).'),
    outside: N_('Se observaron {observed} y el máximo es {maximum}: el ítem no puede aprobarse.') },
];

// A count of whole units (the item's `whole`), as inspection/inspections/outcomes.py WHOLE.
export const WHOLE = N_('La cantidad observada debe ser un número entero: se cuentan unidades.');

/** The bound `item` sets on the observed count with its value, or null for a yes/no item. */
export function itemBound(item) {
  const bound = BOUNDS.find((b) => item[b.name] !== null && item[b.name] !== undefined);
  return bound ? { ...bound, value: Number(item[bound.name]) } : null;
}

/** Spanish problems (untranslated keys) with one answer to `item`; empty when it can be sent. */
export function answerProblems(item, answer) {
  const problems = [];
  if (!answer || !answer.result) return [N_('Elija Cumple, No cumple o No corresponde.')];
  const note = (answer.note || '').trim();
  if (answer.result === 'not_applicable' && !note) problems.push(N_('Explique por qué el ítem no corresponde.'));
  const bound = itemBound(item);
  if (bound && answer.result === 'pass') {
    if (answer.observed === null || answer.observed === undefined || answer.observed === '') {
      problems.push(bound.missing);
    } else if (!bound.within(Number(answer.observed), bound.value)) {
      problems.push(bound.outside);
    }
  }
  if (bound && item.whole && answer.observed !== null && answer.observed !== undefined && answer.observed !== ''
      && !Number.isInteger(Number(answer.observed))) {
    problems.push(WHOLE);
  }
  if (answer.observed !== null && answer.observed !== undefined && answer.observed !== ''
      && !(Number(answer.observed) >= 0 && Number(answer.observed) <= 100000)) {
    problems.push(N_('La cantidad debe estar entre 0 y 100000.'));
  }
  return problems;
}

/** Whether the item still needs a photo: the law asks for evidence and the answer is not "not applicable". */
export function needsPhoto(item, answer, photoCount) {
  return Boolean(item.evidence_required) && Boolean(answer && answer.result) && answer.result !== 'not_applicable'
    && photoCount === 0;
}

/** What stops the inspection from closing: unanswered or incomplete items and missing photos. */
export function closingProblems(items, answers, photosByItem) {
  const unanswered = [];
  const incomplete = [];
  const photos = [];
  for (const item of items) {
    const answer = answers.get(item.id);
    if (!answer || !answer.result) unanswered.push(item);
    else if (answerProblems(item, answer).length) incomplete.push(item);
    if (needsPhoto(item, answer, (photosByItem.get(item.id) || []).length)) photos.push(item);
  }
  return { unanswered, incomplete, photos, ok: !unanswered.length && !incomplete.length && !photos.length };
}

/** Whether a failure stays open after closing: a failure rectified on board in the inspector's presence is not. */
const openFailure = (answer) => answer && answer.result === 'fail' && answer.action !== 'rectified';

/**
 * The outcome closing will produce, as inspection/inspections/outcomes.py compute_outcome decides it: `failed`
 * while an item is unanswered or a detainable failure stays open; `passed_with_observations` when only
 * non-detainable failures stay open; else `passed`. The package carries each item's `detainable` as pinned.
 */
export function expectedOutcome(items, answers) {
  const answered = items.filter((item) => answers.get(item.id) && answers.get(item.id).result);
  const open = answered.filter((item) => openFailure(answers.get(item.id)));
  if (answered.length < items.length || open.some((item) => item.detainable)) return 'failed';
  return open.length ? 'passed_with_observations' : 'passed';
}

/** What closing sends, counted for the closing screen: answers by result, failures by what they cause, photos. */
export function closingSummary(items, answers, photosByItem) {
  const count = { answered: 0, pass: 0, fail: 0, not_applicable: 0, detentions: 0, observations: 0, rectified: 0,
                  unanswered: 0, photos: 0, total: items.length };
  for (const item of items) {
    const answer = answers.get(item.id);
    count.photos += (photosByItem.get(item.id) || []).length;
    if (!answer || !answer.result) { count.unanswered += 1; continue; }
    count.answered += 1;
    count[answer.result] += 1;
    if (answer.result !== 'fail') continue;
    if (!openFailure(answer)) count.rectified += 1;
    else if (item.detainable) count.detentions += 1;
    else count.observations += 1;
  }
  return { ...count, outcome: expectedOutcome(items, answers) };
}
