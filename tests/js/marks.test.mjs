// Node tests of the outbox's `marks` entry (issue 24): sent after its photo is confirmed, under the server's photo
// id, once; a lost reply is retried under the same client_id, and a new drawing replaces an unsent one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStore } from './memory-store.mjs';
import { createEngine } from '../../static/js/tablet/engine.js';
import { outboxOn } from '../../static/js/tablet/queue.js';
import { ApiError, networkError } from '../../static/js/tablet/errors.js';

const USER = 7;
const ID = 41;
const LAYER = { version: 1, photo_sha256: 'ab'.repeat(32), shapes: [{ kind: 'circle', x: 0.5, y: 0.5, rx: 0.1, ry: 0.1 }] };

/** A server that files photos and layers by client_id, as the real one: a replay answers the first result. */
function server() {
  const s = { online: true, loseNext: false, refuse: null, requests: [], photos: new Map(), layers: new Map() };
  const gate = (call) => {
    if (!s.online) throw networkError();
    const answer = call();
    if (s.loseNext) { s.loseNext = false; throw networkError(); }  // applied, but the reply never arrived
    return answer;
  };
  s.api = async (userId, method, path, json) => {
    s.requests.push({ method, path, json: structuredClone(json) });
    if (s.refuse) throw s.refuse;
    return gate(() => {
      if (!s.layers.has(json.client_id)) s.layers.set(json.client_id, { path, marks: json.marks });
      return { version: s.layers.size, sha256: 'cd'.repeat(32) };
    });
  };
  s.upload = async (userId, photo) => {
    s.requests.push({ method: 'UPLOAD', path: photo.client_id });
    return gate(() => {
      if (!s.photos.has(photo.client_id)) s.photos.set(photo.client_id, { id: 90 + s.photos.size });
      return s.photos.get(photo.client_id);
    });
  };
  return s;
}

function tablet() {
  const store = memoryStore();
  const now = () => Date.parse('2026-12-03T12:00:00Z');
  const srv = server();
  const engine = createEngine({ store, api: srv.api, upload: srv.upload, now, random: () => 0 });
  return { store, srv, engine, outbox: outboxOn(store, { now }) };
}

async function photoTakenOffline(t, clientId = 'p1') {
  await t.store.put('photos', { client_id: clientId, inspection_id: ID, item_id: 'a', sha256: 'ab'.repeat(32), size: 10, offset: 0, state: 'pending' });
  await t.outbox.enqueue({ type: 'photo', user_id: USER, inspection_id: ID, client_id: clientId, item_id: 'a' });
}

test('marks drawn offline wait for their photo, then go under the server photo id', async () => {
  const t = tablet();
  t.srv.online = false;
  await photoTakenOffline(t);
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm1');
  assert.deepEqual((await t.outbox.entries()).map((e) => e.type), ['photo', 'marks']);
  assert.equal((await t.store.get('photos', 'p1')).marks_state, 'pending');
  await t.engine.run();
  assert.equal(t.srv.layers.size, 0);

  t.srv.online = true;
  assert.deepEqual(await t.engine.run(true), { wait: null });
  // the upload tried offline, the upload again, then the marks
  assert.deepEqual(t.srv.requests.map((r) => r.method), ['UPLOAD', 'UPLOAD', 'PUT']);
  const put = t.srv.requests.at(-1);
  assert.equal(put.path, `/api/v1/inspections/${ID}/photos/90/marks`);
  assert.deepEqual(put.json, { client_id: 'm1', marks: LAYER });
  assert.deepEqual(await t.outbox.entries(), []);
  assert.equal((await t.store.get('photos', 'p1')).marks_state, 'sent');
});

test('a refused photo holds its marks; they never go before it', async () => {
  const t = tablet();
  await photoTakenOffline(t);
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm1');
  const [photoEntry] = await t.outbox.entries();
  await t.outbox.markFailed(photoEntry, 'No es una imagen.');
  await t.engine.run();
  assert.equal(t.srv.requests.length, 0);
  assert.deepEqual((await t.outbox.entries()).map((e) => [e.type, e.state]), [['photo', 'failed'], ['marks', 'pending']]);
});

test('a lost reply is retried under the same client_id: the server files one layer', async () => {
  const t = tablet();
  await photoTakenOffline(t);
  await t.engine.run();
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm1');
  t.srv.loseNext = true;
  const { wait } = await t.engine.run();
  assert.ok(wait > 0);
  assert.equal((await t.outbox.entries()).length, 1);
  await t.engine.run(true);
  const puts = t.srv.requests.filter((r) => r.method === 'PUT');
  assert.deepEqual(puts.map((r) => r.json.client_id), ['m1', 'm1']);
  assert.equal(t.srv.layers.size, 1);
  assert.deepEqual(await t.outbox.entries(), []);
});

test('drawing again before sending replaces the queued marks; a discarded photo takes its marks along', async () => {
  const t = tablet();
  t.srv.online = false;
  await photoTakenOffline(t);
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm1');
  const cleared = { ...LAYER, shapes: [] };
  await t.outbox.keepMarks(USER, 'p1', cleared, 'm2');
  const queued = (await t.outbox.entries()).filter((e) => e.type === 'marks');
  assert.deepEqual(queued.map((e) => [e.client_id, e.marks.shapes.length]), [['m2', 0]]);
  assert.deepEqual((await t.store.get('photos', 'p1')).marks, cleared);

  await t.outbox.discardPhoto('p1');
  assert.deepEqual(await t.outbox.entries(), []);
});

test('refused marks say why on their photo, and a new drawing is tried again', async () => {
  const t = tablet();
  await photoTakenOffline(t);
  await t.engine.run();
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm1');
  t.srv.refuse = new ApiError('refused', 'La inspección está en estado «submitted».', 409, { type: '/problems/conflict' });
  await t.engine.run();
  const photo = await t.store.get('photos', 'p1');
  assert.deepEqual([photo.state, photo.marks_state, photo.marks_reason], ['sent', 'failed', 'La inspección está en estado «submitted».']);
  t.srv.refuse = null;
  await t.outbox.keepMarks(USER, 'p1', LAYER, 'm2');
  await t.engine.run();
  assert.deepEqual(await t.outbox.entries(), []);
  assert.deepEqual([...t.srv.layers.keys()], ['m2']);
});
