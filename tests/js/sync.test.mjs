// Node tests of the tablet's outbox and sync state machine, end to end against a store in memory and a fake server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStore } from './memory-store.mjs';
import { afterFailure, createEngine, NOT_BEFORE } from '../../static/js/tablet/engine.js';
import { isHeld, outboxOn, readyEntries } from '../../static/js/tablet/queue.js';
import { ApiError, answerError, networkError } from '../../static/js/tablet/errors.js';

const START = Date.parse('2026-12-01T12:00:00Z');
const USER = 7;
const ID = 41;

/** A server that keeps what it applied and answers as the real one does: by client_id, never twice. */
function fakeServer(clock) {
  const server = {
    online: true,
    script: [],            // what the next requests meet: {status, body, retryAfter} or {lose: true}
    refuseItems: {},       // item_id -> the field errors of a per-item refusal
    requests: [],
    answers: new Map(),    // client_id -> the answer applied
    starts: new Map(),
    submits: new Map(),
    photos: new Map(),
    onRequest: null,
  };
  function handle(path, json) {
    if (path.endsWith('/start')) {
      server.starts.set(json.client_id, json);
      return { status: 'in_progress' };
    }
    if (path.endsWith('/sync')) {
      return { results: json.answers.map((a) => {
        if (server.refuseItems[a.item_id]) {
          return { item_id: a.item_id, client_id: a.client_id, status: 'rejected', reason: server.refuseItems[a.item_id] };
        }
        const seen = server.answers.has(a.client_id);
        server.answers.set(a.client_id, a);
        return { item_id: a.item_id, client_id: a.client_id, status: seen ? 'duplicate' : 'applied' };
      }) };
    }
    if (path.endsWith('/submit')) {
      if (!server.submits.has(json.client_id)) server.submits.set(json.client_id, { outcome: 'approved', certificate: null });
      return server.submits.get(json.client_id);
    }
    if (path.endsWith('/interrupt')) return { status: 'interrupted' };
    throw new Error(`unexpected ${path}`);
  }
  async function reply(call) {
    if (server.onRequest) await server.onRequest(call);
    if (!server.online) throw networkError();
    const next = server.script.shift();
    if (next && next.status) throw answerError(next.status, next.body || null, next.retryAfter ?? null, clock.now);
    const answer = call();
    if (next && next.lose) throw networkError();  // applied, but the reply never reached the tablet
    return answer;
  }
  server.api = (userId, method, path, json) => {
    server.requests.push({ method, path, json: structuredClone(json) });
    return reply(() => handle(path, json));
  };
  server.upload = (userId, photo) => {
    server.requests.push({ method: 'UPLOAD', path: photo.client_id });
    return reply(() => {
      if (!server.photos.has(photo.client_id)) server.photos.set(photo.client_id, { id: server.photos.size + 1, sha256: photo.sha256 });
      return server.photos.get(photo.client_id);
    });
  };
  server.paths = () => server.requests.map((r) => r.path.split('/').pop());
  return server;
}

/** A tablet: a store in memory, its outbox, a fake server and the engine, on a clock the test moves. */
function tablet() {
  const clock = { now: START };
  const store = memoryStore();
  const now = () => clock.now;
  const outbox = outboxOn(store, { now });
  const server = fakeServer(clock);
  const statuses = [];
  const engine = createEngine({ store, api: server.api, upload: server.upload, now, random: () => 0,
                                announce: (s) => statuses.push(s) });
  const last = () => statuses[statuses.length - 1];
  return { clock, store, outbox, server, engine, statuses, last };
}

let ids = 0;
async function answer(t, itemId, values = {}) {
  const record = { inspection_id: ID, item_id: itemId, client_id: `c-${itemId}-${(ids += 1)}`, result: 'pass', observed: null,
                   note: '', action: null, photos: [], recorded_at: new Date(t.clock.now).toISOString(), state: 'pending', ...values };
  await t.outbox.keepAnswer(USER, record);
  return record;
}

async function inspectionDoneOffline(t, items = ['a', 'b', 'c']) {
  await t.store.put('packages', { id: ID, package: { items: items.map((id) => ({ id })) } });
  await t.store.put('work', { id: ID, signatures: { inspector: 'x', master: 'y' },
                              closing: { signature: 'Ana Pérez', master_name: 'Juan', submitted_at: '2026-12-01T12:00:00Z' } });
  await t.outbox.enqueue({ type: 'start', user_id: USER, inspection_id: ID, client_id: 'start-1', started_at: 'x', pin: 'p' });
  for (const item of items) await answer(t, item);
  await t.outbox.enqueue({ type: 'submit', user_id: USER, inspection_id: ID, client_id: 'submit-1' });
}

test('answers queued offline wait in order, then go in order when the signal returns', async () => {
  const t = tablet();
  t.server.online = false;
  await inspectionDoneOffline(t);
  const before = await t.outbox.entries();
  assert.deepEqual(before.map((e) => e.type), ['start', 'answer', 'answer', 'answer', 'submit']);

  const { wait } = await t.engine.run();
  assert.equal(t.last().state, 'offline');
  assert.equal(t.last().pending, 5);
  assert.equal(wait, 1000);  // the first backoff, jitter 0
  assert.deepEqual(await t.outbox.entries(), before);  // nothing lost, nothing reordered
  assert.equal(t.server.answers.size, 0);

  t.server.online = true;
  t.server.requests.length = 0;
  t.clock.now += wait;
  assert.deepEqual(await t.engine.run(), { wait: null });
  assert.deepEqual(t.server.paths(), ['start', 'sync', 'submit']);  // the three answers in one request
  assert.deepEqual(t.server.requests[1].json.answers.map((a) => a.item_id), ['a', 'b', 'c']);
  assert.deepEqual(await t.outbox.entries(), []);
  assert.deepEqual(t.last(), { state: 'idle', pending: 0, failed: 0, last_sync: new Date(t.clock.now).toISOString() });
  assert.ok(t.statuses.some((s) => s.state === 'syncing' && s.total === 4));  // start + 3 answers; the closing waits;
  const work = await t.store.get('work', ID);
  assert.equal(work.server_status, 'submitted');
  assert.deepEqual(work.result, { outcome: 'approved', certificate: null });
  // Confirmed and closed: the bulky local copy is dropped.
  assert.deepEqual(await t.store.byInspection('answers', ID), []);
  assert.equal(await t.store.get('packages', ID), undefined);
});

test('a 503 with Retry-After holds the whole outbox, in order, that long', async () => {
  const t = tablet();
  await inspectionDoneOffline(t);
  t.server.script.push({ status: 503, body: { title: 'Almacén de fotos detenido' }, retryAfter: '30' });
  const before = await t.outbox.entries();

  assert.deepEqual(await t.engine.run(), { wait: 30_000 });  // the server's 30 s, not the 1 s backoff
  const held = t.last();
  assert.equal(held.state, 'retrying');
  assert.equal(held.server_asked, true);
  assert.equal(held.retry_at, new Date(START + 30_000).toISOString());
  assert.equal(held.message, 'Almacén de fotos detenido');
  assert.equal(await t.store.get('meta', NOT_BEFORE), held.retry_at);
  assert.deepEqual(await t.outbox.entries(), before);

  t.clock.now += 10_000;  // a timer, the online event or another tab knocks early: nothing is sent
  const asked = t.server.requests.length;
  assert.deepEqual(await t.engine.run(), { wait: 20_000 });
  assert.equal(t.server.requests.length, asked);

  t.clock.now += 20_000;
  assert.deepEqual(await t.engine.run(), { wait: null });
  assert.deepEqual(t.server.paths(), ['start', 'start', 'sync', 'submit']);
  assert.equal(t.last().pending, 0);
  assert.ok(Date.parse(await t.store.get('meta', NOT_BEFORE)) <= t.clock.now);  // what is left of it is past
});

test("the inspector's own sync-now goes through the server's wait at once", async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({ status: 429, retryAfter: '600' });
  assert.deepEqual(await t.engine.run(), { wait: 600_000 });
  assert.deepEqual(await t.engine.run(true), { wait: null });
  assert.deepEqual(t.server.paths(), ['start', 'start', 'sync', 'submit']);
});

test('failures without Retry-After back off doubling, and a success starts again from the bottom', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({ status: 502 }, { status: 500 }, { status: 503 });
  const waits = [];
  for (let i = 0; i < 3; i += 1) waits.push((await t.engine.run()).wait);
  assert.deepEqual(waits, [1000, 2000, 4000]);
  assert.equal(t.engine.failures, 3);
  assert.equal(t.last().server_asked, false);
  assert.equal(t.last().state, 'retrying');
  await t.engine.run();
  assert.equal(t.engine.failures, 0);
  assert.equal(t.last().state, 'idle');
});

test('a retry after a lost response sends the same client ids, and the server keeps each answer once', async () => {
  const t = tablet();
  await t.outbox.enqueue({ type: 'start', user_id: USER, inspection_id: ID, client_id: 'start-1', started_at: 'x', pin: 'p' });
  await answer(t, 'a');
  await answer(t, 'b');
  t.server.script.push({}, { lose: true });  // the start goes through; the /sync is applied but its reply is lost

  await t.engine.run();
  assert.equal(t.last().state, 'offline');
  assert.equal(t.server.answers.size, 2);
  assert.deepEqual((await t.outbox.entries()).map((e) => e.type), ['answer', 'answer']);

  await t.engine.run();
  const syncs = t.server.requests.filter((r) => r.path.endsWith('/sync'));
  assert.equal(syncs.length, 2);
  assert.deepEqual(syncs[1].json.answers.map((a) => a.client_id), syncs[0].json.answers.map((a) => a.client_id));
  assert.equal(t.server.answers.size, 2);  // "duplicate": nothing applied twice
  assert.deepEqual(await t.outbox.entries(), []);
  assert.deepEqual((await t.store.byInspection('answers', ID)).map((a) => a.state), ['sent', 'sent']);
});

test('a closing whose reply was lost is sent again with the same client id and closes once', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({}, {}, { lose: true });
  await t.engine.run();
  assert.equal(t.last().state, 'offline');
  assert.deepEqual((await t.outbox.entries()).map((e) => e.type), ['submit']);
  await t.engine.run();
  const submits = t.server.requests.filter((r) => r.path.endsWith('/submit'));
  assert.deepEqual(submits.map((r) => r.json.client_id), ['submit-1', 'submit-1']);
  assert.equal(t.server.submits.size, 1);
  assert.equal((await t.store.get('work', ID)).server_status, 'submitted');
});

test('a 422 on the start is kept with its words, and holds the rest of that inspection', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({ status: 422, body: { type: 'https://baliza/problems/invalid', errors: { pin: ['El PIN no coincide.'] } } });
  assert.deepEqual(await t.engine.run(), { wait: null });
  const [start, ...rest] = await t.outbox.entries();
  assert.equal(start.state, 'failed');
  assert.equal(start.reason, 'El PIN no coincide.');
  assert.equal(start.code, 'invalid');
  assert.equal(start.attempts, 1);
  assert.deepEqual(rest.map((e) => e.state), ['pending', 'pending']);
  assert.deepEqual(t.server.paths(), ['start']);  // nothing goes before a refused start
  assert.deepEqual(t.last(), { state: 'idle', pending: 3, failed: 1, last_sync: undefined });

  await t.outbox.retry(start.seq);  // the inspector put it right
  await t.engine.run();
  assert.deepEqual(t.server.paths(), ['start', 'start', 'sync', 'submit']);
  assert.equal(t.last().pending, 0);
});

test('a 409 checklist-changed keeps the code the page offers to download again by', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({ status: 409, body: { type: '/problems/checklist-changed', detail: 'La lista cambió.' } });
  await t.engine.run();
  const [start] = await t.outbox.entries();
  assert.equal(start.code, 'checklist-changed');
  assert.equal(start.reason, 'La lista cambió.');
});

test('an answer the server refuses is kept, shown on the item, and holds the closing', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a', 'b']);
  t.server.refuseItems.b = { observed: ['Indique la cantidad observada.'] };
  await t.engine.run();
  const left = await t.outbox.entries();
  assert.deepEqual(left.map((e) => [e.type, e.state]), [['answer', 'failed'], ['submit', 'pending']]);
  assert.equal(left[0].reason, 'Indique la cantidad observada.');
  const [a, b] = await t.store.byInspection('answers', ID);
  assert.equal(a.state, 'sent');
  assert.deepEqual([b.state, b.reason], ['failed', 'Indique la cantidad observada.']);
  assert.deepEqual(t.last(), { state: 'idle', pending: 2, failed: 1, last_sync: new Date(START).toISOString() });
  assert.equal(t.server.submits.size, 0);

  // Corrected on the tablet: a new client id, queued again on the same entry (never a second one).
  delete t.server.refuseItems.b;
  await answer(t, 'b', { observed: 3 });
  assert.deepEqual((await t.outbox.entries()).map((e) => [e.type, e.state]), [['answer', 'pending'], ['submit', 'pending']]);
  await t.engine.run();
  assert.equal(t.server.submits.size, 1);
  assert.equal(t.last().pending, 0);
});

test('an answer edited while its first version was on the way is sent again, the newer one', async () => {
  const t = tablet();
  await answer(t, 'a');
  let edited = false;
  t.server.onRequest = async () => {
    if (!edited) { edited = true; await answer(t, 'a', { result: 'fail' }); }
  };
  await t.engine.run();
  const syncs = t.server.requests.map((r) => r.json.answers[0].result);
  assert.deepEqual(syncs, ['pass', 'fail']);
  assert.equal((await t.store.get('answers', [ID, 'a'])).result, 'fail');
  assert.deepEqual(await t.outbox.entries(), []);
});

test('an expired sign-in stops everything until the inspector signs in again', async () => {
  const t = tablet();
  await inspectionDoneOffline(t, ['a']);
  t.server.script.push({ status: 401, body: { detail: 'Token revocado.' } });
  assert.deepEqual(await t.engine.run(), { wait: null });
  assert.equal(t.last().state, 'signin');
  assert.equal(t.last().message, 'Token revocado.');
  assert.equal((await t.outbox.entries()).filter((e) => e.state === 'pending').length, 3);
});

test('photos go before the closing, a refused one shows refused, and bytes are counted', async () => {
  const t = tablet();
  await t.store.put('photos', { client_id: 'p1', inspection_id: ID, item_id: 'a', sha256: 'x', size: 1000, offset: 0, state: 'pending' });
  await t.store.put('photos', { client_id: 'p2', inspection_id: ID, item_id: 'a', sha256: 'y', size: 500, offset: 0, state: 'pending' });
  await t.outbox.enqueue({ type: 'photo', user_id: USER, inspection_id: ID, client_id: 'p1', item_id: 'a' });
  await t.outbox.enqueue({ type: 'photo', user_id: USER, inspection_id: ID, client_id: 'p2', item_id: 'a' });
  t.server.script.push({}, { status: 422, body: { detail: 'No es una imagen.' } });
  await t.engine.run();
  const first = t.statuses.find((s) => s.state === 'syncing');
  assert.deepEqual([first.bytes_done, first.bytes_total], [0, 1500]);
  assert.deepEqual([(await t.store.get('photos', 'p1')).state, (await t.store.get('photos', 'p1')).photo_id], ['sent', 1]);
  assert.deepEqual([(await t.store.get('photos', 'p2')).state, (await t.store.get('photos', 'p2')).reason], ['failed', 'No es una imagen.']);
  const [left] = await t.outbox.entries();
  assert.deepEqual([left.client_id, left.state], ['p2', 'failed']);

  await t.outbox.retry(left.seq);  // taken again: pending on screen and in the outbox
  assert.equal((await t.store.get('photos', 'p2')).state, 'pending');
  await t.engine.run();
  assert.equal(t.server.photos.size, 2);
  assert.deepEqual(await t.outbox.entries(), []);
});

test('a discarded photo leaves with its entry; an answer is queued once however often it changes', async () => {
  const t = tablet();
  await t.store.put('photos', { client_id: 'p1', inspection_id: ID, item_id: 'a', sha256: 'x', size: 10, state: 'pending' });
  await t.outbox.enqueue({ type: 'photo', user_id: USER, inspection_id: ID, client_id: 'p1', item_id: 'a' });
  for (let i = 0; i < 4; i += 1) await answer(t, 'a', { note: `n${i}` });
  assert.deepEqual((await t.outbox.entries()).map((e) => e.type), ['photo', 'answer']);
  await t.outbox.discardPhoto('p1');
  assert.deepEqual((await t.outbox.entries()).map((e) => e.type), ['answer']);
  assert.equal(await t.store.get('photos', 'p1'), undefined);
  await t.engine.run();
  assert.deepEqual(t.server.requests.map((r) => r.json.answers.map((a) => a.note)), [['n3']]);
});

test('a draft answer is kept on the tablet and queued only once it can be sent', async () => {
  const t = tablet();
  await answer(t, 'a', { result: 'not_applicable', state: 'draft' });  // the note is still missing
  assert.equal((await t.store.get('answers', [ID, 'a'])).state, 'draft');
  assert.deepEqual(await t.outbox.entries(), []);
  await answer(t, 'a', { result: 'not_applicable', note: 'No lleva', state: 'pending' });
  assert.deepEqual((await t.outbox.entries()).map((e) => [e.type, e.item_id, e.state]), [['answer', 'a', 'pending']]);
});

test('a broken transaction changes nothing in the store', async () => {
  const store = memoryStore();
  await store.put('outbox', { type: 'answer', inspection_id: 1 });
  await assert.rejects(store.transact(['outbox', 'photos'], async (tx) => {
    tx.objectStore('outbox').delete(1);
    tx.objectStore('photos').put({ client_id: 'z' });
    throw new Error('disk');
  }), /disk/);
  assert.equal((await store.all('outbox')).length, 1);
  assert.deepEqual(await store.all('photos'), []);
});

test('what may be sent now: a refused start holds its inspection only, a closing waits for the rest', () => {
  const queue = [
    { seq: 1, inspection_id: 1, type: 'start', state: 'failed' },
    { seq: 2, inspection_id: 1, type: 'answer', state: 'pending' },
    { seq: 3, inspection_id: 2, type: 'answer', state: 'pending' },
    { seq: 4, inspection_id: 2, type: 'submit', state: 'pending' },
    { seq: 5, inspection_id: 3, type: 'submit', state: 'pending' },
  ];
  const { ready, failed } = readyEntries(queue);
  assert.deepEqual(ready.map((e) => e.seq), [3, 5]);
  assert.equal(failed, 1);
  assert.equal(isHeld(queue[0], queue.slice(0, 2)), false);  // the start itself may be retried
});

test("the server's answers sorted by what the outbox does about them", () => {
  const now = START;
  const kinds = [401, 403, 404, 408, 409, 422, 429, 500, 503].map((s) => answerError(s, null, null, now).kind);
  assert.deepEqual(kinds, ['auth', 'refused', 'refused', 'retry', 'refused', 'refused', 'retry', 'retry', 'retry']);
  assert.equal(answerError(503, null, '120', now).retryAfter, 120_000);
  assert.equal(answerError(503, null, 'Tue, 01 Dec 2026 12:01:00 GMT', now).retryAfter, 60_000);
  assert.equal(answerError(422, { detail: 'Mal.', errors: { a: ['Uno.'] } }, null, now).message, 'Mal. Uno.');

  assert.deepEqual(afterFailure(new TypeError('boom'), 1, now), { action: 'refuse', reason: 'boom', code: null, photo: false });
  assert.equal(afterFailure(answerError(401, null, null, now), 1, now).action, 'signin');
  const offline = afterFailure(networkError(), 3, now, () => 0);
  assert.deepEqual([offline.action, offline.state, offline.wait, offline.asked], ['wait', 'offline', 4000, false]);
  const busy = afterFailure(new ApiError('retry', 'x', 503, null, 0), 1, now, () => 0);
  assert.deepEqual([busy.state, busy.wait, busy.asked], ['retrying', 1000, true]);  // Retry-After: 0 still counts as asked
});
