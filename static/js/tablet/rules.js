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
