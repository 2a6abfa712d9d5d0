// Node tests of the police phone's patrol check: its pure rules (static/js/patrol/flow.js) and the tablet's outbox
// and sync engine sending a check made offline, against a store in memory and a fake patrol API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStore } from './memory-store.mjs';
import { createEngine } from '../../static/js/tablet/engine.js';
import { outboxOn, readyEntries } from '../../static/js/tablet/queue.js';
import { ApiError } from '../../static/js/tablet/errors.js';
import { allowedOutcomes, checkKey, findVessels, fineWords, firstList, listsOf, passAll, scannedFrom, startBody, stepCount,
  suggestedOutcome, unsendable, vesselByRegistration } from '../../static/js/patrol/flow.js';

const AT = '2026-12-03T14:00:00Z';
const LIGHTS = { id: 'con.lights.night', required: null, maximum: null, detainable: false, fine: { min: 300, max: 1000 } };
const SMOKING = { id: 'con.fire.no_smoking', required: null, maximum: null, detainable: true, fine: null };
const PASSENGERS = { id: 'con.passengers.within_maximum', required: null, maximum: 20, whole: true, detainable: false };
const BUCKETS = { id: 'men.buckets.total', required: 1, maximum: null, whole: true, detainable: false };

// A kit as inspection/patrol/kit.py patrol_kit serves it: the server decided each profile's items and bounds.
const EXEMPT = { source: 'Ley 928/1927', article: '210', reason: 'Solo botes y canoas', reason_en: 'Only boats' };
const KIT = {
  items: [LIGHTS, SMOKING, PASSENGERS, BUCKETS], exemptions: [EXEMPT],
  lists: [{ items: [3] }, { items: [0, 1] }, { exemption: 0 }, { items: [0, 1, 2] }],
  profiles: [{ menores: 0, conducta: 1 }, { menores: 2, conducta: 3 }],
  crafts: { rowing: 0, motor: 1 },
  vessels: [{ id: 7, label: 'PY-1234 · Doña Ñandutí', registration: 'PY-1234', lists: 1 },
            { id: 9, label: 'AR 77 · Canoa', registration: 'AR 77', lists: 0 }],
};

test('offline, a craft or vessel gets the lists the server decided for its profile, not every item', () => {
  assert.deepEqual(listsOf(KIT, KIT.crafts.rowing), { menores: { items: [BUCKETS] }, conducta: { items: [LIGHTS, SMOKING] } });
  const launch = listsOf(KIT, KIT.vessels[0].lists);
  assert.deepEqual(launch.menores, { exemption: EXEMPT });  // art. 210: no small-craft list for a motor launch
  assert.equal(launch.conducta.items[2].maximum, 20);  // its passengers' bound, as the server pins it
  assert.equal(firstList(launch), 'conducta');
  assert.equal(listsOf(KIT, 5), null);
});

test('a scanned certificate names its vessel by registration, spaces and case aside', () => {
  assert.equal(vesselByRegistration(KIT, 'py-1234').id, 7);
  assert.equal(vesselByRegistration(KIT, 'AR77').id, 9);
  assert.equal(vesselByRegistration(KIT, 'PY-9999'), null);
  assert.equal(vesselByRegistration(KIT, undefined), null);  // an unreadable token names none
  assert.equal(vesselByRegistration({}, 'PY-1234'), null);  // a kit without vessels
});

test('without signal the search looks in the kit: registration or name, accents and case aside', () => {
  assert.deepEqual(findVessels(KIT, 'py-12').map((v) => v.id), [7]);
  assert.deepEqual(findVessels(KIT, 'nandu').map((v) => v.id), [7]);
  assert.deepEqual(findVessels(KIT, 'canoa').map((v) => v.id), [9]);
  assert.deepEqual(findVessels(KIT, 'p'), []);  // too short to search
  assert.equal(findVessels(KIT, 'PY', 1).length, 1);
});

test('"todo cumple" passes the yes/no items and leaves the counts to the officer', () => {
  const answers = passAll([LIGHTS, BUCKETS, SMOKING], { [SMOKING.id]: { result: 'fail' } }, AT);
  assert.equal(answers[LIGHTS.id].result, 'pass');
  assert.equal(answers[SMOKING.id].result, 'fail');  // an answer given stays
  assert.equal(answers[BUCKETS.id], undefined);
  const preview = { id: 'con.pilots.embarked_national', required: null, maximum: null, counted: true };
  assert.equal(passAll([preview], {}, AT)[preview.id], undefined);  // offline, its bound unknown: still a count
  assert.deepEqual([stepCount(preview, undefined, 2, AT).result, stepCount(preview, undefined, 2, AT).observed], ['pass', 2]);
});

test('a count passes within its bound and fails outside it, never below zero', () => {
  assert.deepEqual([stepCount(BUCKETS, undefined, 1, AT).result, stepCount(BUCKETS, undefined, 1, AT).observed], ['pass', 1]);
  assert.equal(stepCount(BUCKETS, { observed: 1 }, -1, AT).result, 'fail');
  assert.equal(stepCount(BUCKETS, { observed: 0 }, -1, AT).observed, 0);
  assert.equal(stepCount(PASSENGERS, { observed: 20 }, 1, AT).result, 'fail');  // art. 184: over the maximum
  assert.equal(stepCount(PASSENGERS, { observed: 21 }, -1, AT).result, 'pass');
});

test('the outcomes offered are those the server accepts for the answers', () => {
  const items = [LIGHTS, SMOKING];
  assert.deepEqual(allowedOutcomes(items, { [LIGHTS.id]: { result: 'pass' } }), ['sin_novedad']);
  assert.deepEqual(allowedOutcomes(items, {}, 'casco sucio'), ['sin_novedad', 'observaciones']);
  assert.deepEqual(allowedOutcomes(items, { [LIGHTS.id]: { result: 'fail' } }), ['observaciones', 'infraccion']);
  assert.deepEqual(allowedOutcomes(items, { [SMOKING.id]: { result: 'fail' } }), ['observaciones', 'infraccion', 'retencion']);
  assert.equal(suggestedOutcome(items, { [LIGHTS.id]: { result: 'fail' } }), 'infraccion');
  assert.equal(suggestedOutcome(items, {}), 'sin_novedad');
});

test('a count missing or outside its bound is caught before closing', () => {
  const wrong = unsendable([BUCKETS, LIGHTS], { [BUCKETS.id]: { result: 'pass', observed: null }, [LIGHTS.id]: { result: 'pass' } });
  assert.deepEqual(wrong.map((w) => w.item.id), [BUCKETS.id]);
});

test('a small craft starts on its own list; a motor craft, exempt from it, on conduct', () => {
  assert.equal(firstList({ menores: { items: [] }, conducta: { items: [] } }), 'menores');
  assert.equal(firstList({ menores: { exemption: { reason: 'art. 210' } }, conducta: { items: [] } }), 'conducta');
});

test('the start body names one craft, and the verifier hands over token, verdict and list age', () => {
  const scanned = scannedFrom('?t=ABCDEFGH234&verdict=valid&age=3600');
  assert.deepEqual(scanned, { token: 'ABCDEFGH234', verdict: 'valid', list_age_s: 3600 });
  assert.equal(scannedFrom('?verdict=valid'), null);
  assert.deepEqual(scannedFrom('?t=ABCDEFGH&age=-3&verdict=unconfirmed'), { token: 'ABCDEFGH', verdict: null, list_age_s: null });
  const canoe = startBody({ client_id: 'c', checked_at: AT, checklist: 'menores', place: 'Km 3', craft: { type: 'rowing', length_m: '4.5' } });
  assert.deepEqual(canoe.craft, { marks: '', type: 'rowing', length_m: 4.5 });
  assert.equal(canoe.vessel_id, undefined);
  const qr = startBody({ client_id: 'c', checked_at: AT, checklist: 'conducta', place: 'Km 3', verification: scanned });
  assert.deepEqual([qr.verification, qr.craft, qr.vessel_id], [scanned, undefined, undefined]);
  assert.equal(fineWords({ min: 300, max: 1000 }, (text, p) => text.replace('{min}', p.min).replace('{max}', p.max)), 'multa de 300 a 1000');
  assert.equal(fineWords(null, String), '');
});

/** The patrol API as the server answers it: a check per client_id, an answer per client_id, a photo per client_id. */
function patrolServer(pinned) {
  const server = { online: false, checks: new Map(), answers: new Map(), photos: new Map(), closes: new Map(), requests: [] };
  server.api = async (userId, method, path, json, options = {}) => {
    if (!server.online) throw new ApiError('network', 'Sin conexión con el servidor.');
    server.requests.push(`${method} ${path}`);
    if (path === '/api/v1/patrol-checks') {
      if (!server.checks.has(json.client_id)) server.checks.set(json.client_id, { id: server.checks.size + 1, ...json });
      return { id: server.checks.get(json.client_id).id, registration: 'PY-1', items: pinned.map((id) => ({ id })) };
    }
    let match = path.match(/^\/api\/v1\/patrol-checks\/(\d+)\/answers\/(.+)$/);
    if (match) { server.answers.set(json.client_id, { check: Number(match[1]), item: match[2], ...json }); return json; }
    match = path.match(/\/(\d+)\/close$/);
    if (match) { server.closes.set(json.client_id, { check: Number(match[1]), ...json }); return { outcome: json.outcome }; }
    throw new Error(`unexpected ${method} ${path}`);
  };
  /** The resumable upload (static/js/tablet/uploads.js) as the server answers it: bytes kept across a cut. */
  server.held = new Map();
  server.cutAfter = null;  // bytes that get through before the link drops, once
  server.upload = async (userId, photo, saveOffset, onProgress, options) => {
    if (!server.online) throw new ApiError('network', 'Sin conexión con el servidor.');
    const from = server.held.get(photo.client_id) || 0;
    server.requests.push(`UPLOAD ${options.base} ${photo.client_id} from ${from}`);
    await saveOffset(from);
    if (server.cutAfter !== null) {
      server.held.set(photo.client_id, from + server.cutAfter);
      server.cutAfter = null;
      throw new ApiError('network', 'Sin conexión con el servidor.');
    }
    server.held.set(photo.client_id, photo.size);
    server.photos.set(photo.client_id, { item: photo.item_id, bytes: photo.size - from });
    return { id: 90 + server.photos.size };
  };
  return server;
}

test('a check made offline waits, then reaches the server once, in order; an item not pinned is not sent', async () => {
  const store = memoryStore();
  let clock = Date.parse(AT);
  const server = patrolServer(['con.lights.night']);
  const engine = createEngine({ store, api: server.api, upload: server.upload, now: () => clock, random: () => 0 });
  const outbox = outboxOn(store, { now: () => clock });
  const key = checkKey('c-1');
  await outbox.enqueue({ type: 'patrol-start', user_id: 7, inspection_id: key, body: { client_id: 'c-1', checklist: 'conducta' } });
  for (const [item, result] of [['con.lights.night', 'fail'], ['con.fire.no_smoking', 'pass']]) {
    await outbox.keepAnswer(7, { inspection_id: key, item_id: item, client_id: `a-${item}`, result, state: 'pending', recorded_at: AT }, 'patrol-answer');
  }
  await store.put('photos', { client_id: 'p-1', inspection_id: key, item_id: 'con.lights.night', bytes: new Uint8Array(1234).buffer,
                              size: 1234, mime: 'image/jpeg', taken_at: AT, state: 'pending' });
  await outbox.enqueue({ type: 'patrol-photo', user_id: 7, inspection_id: key, client_id: 'p-1' });
  await outbox.enqueue({ type: 'patrol-close', user_id: 7, inspection_id: key, body: { client_id: 'x-1', outcome: 'infraccion', note: '' } });
  const queue = await outbox.entries();
  assert.deepEqual(readyEntries(queue).ready.map((e) => e.type),  // the closing waits for the rest
    ['patrol-start', 'patrol-answer', 'patrol-answer', 'patrol-photo']);

  assert.equal((await engine.run()).wait > 0, true);  // offline: nothing lost, a retry is scheduled
  assert.equal((await outbox.entries()).length, 5);
  server.online = true;
  clock += 60000;
  assert.deepEqual(await engine.run(), { wait: null });
  assert.deepEqual(server.requests, ['POST /api/v1/patrol-checks', 'PUT /api/v1/patrol-checks/1/answers/con.lights.night',
    'UPLOAD /api/v1/patrol-checks/1/uploads p-1 from 0', 'POST /api/v1/patrol-checks/1/close']);
  assert.equal(server.photos.get('p-1').bytes, 1234);
  assert.equal((await outbox.entries()).length, 0);
  assert.deepEqual([(await store.get('work', key)).server_status, (await store.get('work', key)).registration], ['closed', 'PY-1']);
  assert.deepEqual(await store.all('photos'), []);  // confirmed: the bulky copy is dropped
  await engine.run();
  assert.equal(server.requests.length, 4);  // nothing is sent twice
});

test('a patrol photo cut mid-way goes on from the bytes the server holds, and the closing waits for it', async () => {
  const store = memoryStore();
  let clock = Date.parse(AT);
  const server = patrolServer(['con.lights.night']);
  const engine = createEngine({ store, api: server.api, upload: server.upload, now: () => clock, random: () => 0 });
  const outbox = outboxOn(store, { now: () => clock });
  const key = checkKey('c-9');
  await outbox.enqueue({ type: 'patrol-start', user_id: 7, inspection_id: key, body: { client_id: 'c-9', checklist: 'conducta' } });
  await store.put('photos', { client_id: 'p-9', inspection_id: key, item_id: 'con.lights.night', bytes: new Uint8Array(5000).buffer,
                              size: 5000, mime: 'image/jpeg', taken_at: AT, state: 'pending' });
  await outbox.enqueue({ type: 'patrol-photo', user_id: 7, inspection_id: key, client_id: 'p-9' });
  await outbox.enqueue({ type: 'patrol-close', user_id: 7, inspection_id: key, body: { client_id: 'x-9', outcome: 'sin_novedad', note: '' } });
  server.online = true;
  server.cutAfter = 3000;
  assert.equal((await engine.run()).wait > 0, true);  // the link dropped mid-photo: a retry is scheduled
  assert.deepEqual((await outbox.entries()).map((e) => e.type), ['patrol-photo', 'patrol-close']);
  assert.equal(server.closes.size, 0);
  clock += 60000;
  assert.deepEqual(await engine.run(), { wait: null });
  assert.deepEqual(server.requests.filter((r) => r.startsWith('UPLOAD')),
    ['UPLOAD /api/v1/patrol-checks/1/uploads p-9 from 0', 'UPLOAD /api/v1/patrol-checks/1/uploads p-9 from 3000']);
  assert.equal(server.photos.get('p-9').bytes, 2000);  // only what the server lacked travelled again
  assert.equal(server.closes.size, 1);
  assert.equal((await outbox.entries()).length, 0);
});

test('a refused start holds the rest of its check, not the other checks', async () => {
  const store = memoryStore();
  const outbox = outboxOn(store, { now: () => 0 });
  const first = checkKey('c-1');
  const second = checkKey('c-2');
  await outbox.enqueue({ type: 'patrol-start', user_id: 7, inspection_id: first, body: {} });
  await outbox.enqueue({ type: 'patrol-close', user_id: 7, inspection_id: first, body: {} });
  await outbox.enqueue({ type: 'patrol-start', user_id: 7, inspection_id: second, body: {} });
  const [start] = await outbox.entries();
  await outbox.markFailed(start, 'Sin posición');
  const { ready } = readyEntries(await outbox.entries());
  assert.deepEqual(ready.map((e) => [e.type, e.inspection_id]), [['patrol-start', second]]);
});
