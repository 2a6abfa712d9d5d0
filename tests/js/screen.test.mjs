// Node tests of the inspection screen's computations (static/js/tablet/screen.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answerChanged, closingMissing, inLanguage, isClosed, isStarted, itemStatus, newAnswer, openItems, photoLabel, progress, topicGroups,
  withRemotePhotos,
} from '../../static/js/tablet/screen.js';

const ITEMS = [
  { id: 'a', topic: 'fire', topic_title: 'Incendio', checklist: 'seg', required: 4, evidence_required: true },
  { id: 'b', topic: 'fire', topic_title: 'Incendio', checklist: 'seg', required: null },
  { id: 'c', topic: 'hull', topic_title: 'Casco', checklist: 'nav', required: null },
  { id: 'd', topic: 'fire', topic_title: 'Incendio', checklist: 'nav', maximum: 40 },
];

test('topics keep their order and are told apart by checklist', () => {
  assert.deepEqual(topicGroups(ITEMS).map((g) => [g.key, g.items.map((i) => i.id)]),
                   [['seg/fire', ['a', 'b']], ['nav/hull', ['c']], ['nav/fire', ['d']]]);
});

test('a title two checklists share is followed by the name of its checklist', () => {
  const named = { seg: 'Seguridad', nav: 'Navegabilidad' };
  assert.deepEqual(topicGroups(ITEMS, (checklist) => named[checklist]).map((g) => g.title),
                   ['Incendio · Seguridad', 'Casco', 'Incendio · Navegabilidad']);
});

test('an item reads in the page language whichever language it was taken aboard in', () => {
  const spanish = { id: 'x', title: 'Salvavidas', title_en: 'Lifebuoys', topic_title: 'Salvamento', topic_title_en: 'Lifesaving',
                    unit: 'salvavidas', unit_en: 'lifebuoys', restriction_label: null, restriction_label_en: null };
  assert.deepEqual([inLanguage(spanish, 'en').title, inLanguage(spanish, 'en').topic_title, inLanguage(spanish, 'en').unit],
                   ['Lifebuoys', 'Lifesaving', 'lifebuoys']);
  assert.equal(inLanguage(spanish, 'es').title, 'Salvavidas');
  const english = { ...spanish, title: 'Lifebuoys', title_es: 'Salvavidas', topic_title: 'Lifesaving', topic_title_es: 'Salvamento' };
  assert.deepEqual([inLanguage(english, 'es').title, inLanguage(english, 'es').topic_title], ['Salvavidas', 'Salvamento']);
  assert.equal(inLanguage({ id: 'old', title: 'Sólo español' }, 'en').title, 'Sólo español');  // nothing else to show
});

test('progress counts only complete answers, overall and per topic', () => {
  const answers = new Map([['a', { result: 'pass', observed: 3 }], ['b', { result: 'fail', note: '' }],
                           ['c', { result: 'not_applicable', note: 'No tiene' }]]);
  const found = progress(ITEMS, answers);
  assert.deepEqual([found.answered, found.total], [2, 4]);
  assert.deepEqual(Object.fromEntries(found.topics), { 'seg/fire': { done: 1, total: 2 }, 'nav/hull': { done: 1, total: 1 },
                                                        'nav/fire': { done: 0, total: 1 } });
  assert.deepEqual(openItems(ITEMS, answers).map((i) => i.id), ['a', 'd']);
});

test("each item's status line follows its answer and the server's word", () => {
  const [a, b, , d] = ITEMS;
  assert.deepEqual(itemStatus(b, undefined, 0), { state: 'unanswered', actionHidden: true, text: '', tone: 'muted', needsPhoto: false });
  assert.deepEqual(itemStatus(b, { result: 'fail', state: 'pending' }, 0),
                   { state: 'fail', actionHidden: false, text: 'Guardado en la tableta; pendiente de envío', tone: 'muted', needsPhoto: false });
  assert.deepEqual(itemStatus(b, { result: 'pass', state: 'sent' }, 0).text, '✓ Guardado y enviado');
  assert.deepEqual(itemStatus(b, { result: 'pass', state: 'sent' }, 0).tone, 'ok');
  const refused = itemStatus(b, { result: 'pass', state: 'failed', reason: 'Ítem retirado.' }, 0);
  assert.deepEqual([refused.text, refused.tone], ['Rechazado por el servidor: Ítem retirado.', 'bad']);
  const over = itemStatus(d, { result: 'pass', observed: 41 }, 0);
  assert.deepEqual([over.text, over.tone], ['Se observaron 41 y el máximo es 40: el ítem no puede aprobarse.', 'bad']);
  const photoless = itemStatus(a, { result: 'pass', observed: 4, state: 'sent' }, 0);
  assert.deepEqual([photoless.text, photoless.tone, photoless.needsPhoto], ['✓ Guardado y enviado · Falta la foto de evidencia', 'warn', true]);
  assert.equal(itemStatus(a, { result: 'pass', observed: 4, state: 'sent' }, 1).needsPhoto, false);
});

test('an answer is queued only when it changed and the law accepts it', () => {
  const [a] = ITEMS;
  const values = { result: 'pass', observed: 4, note: '', action: null };
  const before = { ...values, photos: ['x'] };
  assert.equal(answerChanged(before, values, ['x']), false);
  assert.equal(answerChanged(before, values, ['x', 'y']), true);
  assert.equal(answerChanged(before, { ...values, observed: 5 }, ['x']), true);
  assert.equal(answerChanged({ result: 'pass', observed: undefined }, { result: 'pass', observed: null, note: '', action: null }, []), false);
  assert.equal(answerChanged(undefined, values, []), true);
  const sendable = newAnswer(a, { inspectionId: 3, clientId: 'c1', values, photos: ['x'], recordedAt: 'T' });
  assert.deepEqual(sendable, { inspection_id: 3, item_id: 'a', client_id: 'c1', ...values, photos: ['x'], recorded_at: 'T',
                               state: 'pending', reason: null });
  assert.equal(newAnswer(a, { inspectionId: 3, clientId: 'c2', values: { ...values, observed: null }, photos: [], recordedAt: 'T' }).state, 'draft');
  assert.equal(newAnswer(a, { inspectionId: 3, clientId: 'c3', values: { ...values, result: null }, photos: [], recordedAt: 'T' }).state, 'draft');
});

test('the closing needs both names and both signatures', () => {
  assert.deepEqual(closingMissing({ signature: 'A', master: '', signatures: {} }), [
    'Escriba el nombre completo del inspector.', 'Escriba el nombre del capitán o patrón.',
    'Falta la firma del inspector.', 'Falta la firma del capitán o patrón.']);
  assert.deepEqual(closingMissing({ signature: 'Ana', master: 'Juan', signatures: { inspector: 'd', master: 'd' } }), []);
});

test('started, closed, photo words, and photos from another session', () => {
  const pkg = { package: { inspection: { status: 'scheduled' } } };
  assert.equal(isStarted(pkg, {}), false);
  assert.equal(isStarted(pkg, { started_at: 'T' }), true);
  assert.equal(isStarted({ package: { inspection: { status: 'in_progress' } } }, {}), true);
  assert.deepEqual([isClosed({}), isClosed({ closing: {} }), isClosed({ interrupt: {} })], [false, true, true]);
  assert.deepEqual(['sent', 'failed', 'pending', undefined].map(photoLabel), ['enviada', 'rechazada', 'pendiente', 'pendiente']);
  const local = new Map([['a', [{ client_id: 'p1', sha256: 'h1', state: 'pending' }]]]);
  const merged = withRemotePhotos(local, [{ item_id: 'a', sha256: 'h1' }, { item_id: 'a', sha256: 'h2' }, { item_id: 'b', sha256: 'h3' }]);
  assert.deepEqual(merged.get('a').map((p) => [p.sha256, p.state, Boolean(p.remote)]), [['h1', 'pending', false], ['h2', 'sent', true]]);
  assert.deepEqual(merged.get('b').map((p) => p.sha256), ['h3']);
  assert.equal(local.get('a').length, 1);  // the device's own list is left as it was
});
