// The sync engine: empties the outbox whenever there is signal, by itself, with no reload.
//
// One engine at a time across tabs and the service worker (Web Locks). Triggers: a new entry, the
// `online` event, the page becoming visible, a timer, and Background Sync where the browser has it
// (the service worker runs this same module then). A failure of the link or of the server waits with
// exponential backoff and jitter, or as long as the server's Retry-After asked (503 of a store that is
// down, 429 of a rate limit; at most an hour), then tries again; an expired sign-in waits for a new one; a refusal
// is kept on the entry with the server's words. Progress goes to every open page over a
// BroadcastChannel: offline / syncing n of m (bytes) / up to date, with the last sync time.
import { all, byInspection, del, get, put, transact } from './store.js';
import { ApiError, api, problemText } from './net.js';
import { STATES, entries, isHeld, markFailed, onQueued, remove } from './outbox.js';
import { uploadPhoto } from './uploads.js';
import { retryDelay } from './backoff.js';
import { gettext } from '../i18n.js';

const LOCK = 'baliza-outbox';
const CHANNEL = 'baliza-sync';
const BATCH = 200;
const TIMER_MS = 30000;
const NOT_BEFORE = 'retry-not-before';  // meta key: no attempt before this moment (the server's Retry-After)

let failures = 0;
let retryTimer = null;
let running = null;
let status = { state: 'idle' };
const channel = typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel(CHANNEL) : null;
const listeners = new Set();

/** Follow the engine's status (`fn(status)` now and on every change, from any tab or the worker). */
export function watch(fn) {
  listeners.add(fn);
  fn(status);
  return () => listeners.delete(fn);
}

function announce(next) {
  status = { ...next, at: new Date().toISOString() };
  listeners.forEach((fn) => fn(status));
  if (channel) channel.postMessage(status);
  put('meta', status, 'sync-status').catch(() => {});
}

if (channel) channel.onmessage = (event) => { status = event.data; listeners.forEach((fn) => fn(status)); };

/**
 * Start syncing now if nothing else is (another tab or the worker may be); resolves when done.
 * While the server's Retry-After runs, only `force` (the inspector's own "sync now") knocks earlier.
 */
export function syncNow({ force = false } = {}) {
  if (running) return running;
  const work = async () => {
    try { await run(force); } finally { running = null; }
  };
  running = navigator.locks
    ? navigator.locks.request(LOCK, { ifAvailable: true }, (lock) => (lock ? work() : null)).finally(() => { running = null; })
    : work();
  return running;
}

function schedule(ms) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => { retryTimer = null; syncNow(); }, ms);
}

/** Register the page (or worker) triggers once. */
export function startSyncing() {
  onQueued(() => { requestBackgroundSync(); syncNow(); });
  if (typeof window !== 'undefined') {
    window.addEventListener('online', () => { failures = 0; syncNow(); });
    window.addEventListener('offline', () => announce({ ...status, state: 'offline' }));
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') syncNow(); });
  }
  setInterval(() => { if (!retryTimer) syncNow(); }, TIMER_MS);
  get('meta', 'sync-status').then((saved) => { if (saved && status.state === 'idle') { status = saved; listeners.forEach((fn) => fn(status)); } });
  syncNow();
}

/** Ask the browser to wake the service worker for the outbox when signal returns (Chromium only). */
export async function requestBackgroundSync() {
  try {
    const registration = await navigator.serviceWorker?.ready;
    if (registration && registration.sync) await registration.sync.register(LOCK);
  } catch (error) { /* not offered here: the timer and the online event still resume */ }
}

/** The ms left of the wait the server asked for (kept across tabs, the worker and reloads), else 0. */
async function serverWait() {
  const until = await get('meta', NOT_BEFORE).catch(() => null);
  return until ? Math.max(0, Date.parse(until) - Date.now()) : 0;
}

async function run(force = false) {
  const asked = await serverWait();
  if (asked && !force) { schedule(asked); return; }  // the outbox stays as it is, in order
  if (asked || force) await del('meta', NOT_BEFORE).catch(() => {});
  let done = 0;
  let bytesDone = 0;
  const last = await get('meta', 'last-sync');
  for (;;) {
    const queue = await entries();
    const byInspection = groupBy(queue, (e) => e.inspection_id);
    const ready = queue.filter((e) => e.state === STATES.pending && !isHeld(e, byInspection.get(e.inspection_id)));
    const failed = queue.filter((e) => e.state === STATES.failed).length;
    const photos = await all('photos');
    const bytesLeft = photos.filter((p) => p.state !== 'sent').reduce((sum, p) => sum + (p.size - (p.offset || 0)), 0);
    if (!ready.length) {
      const now = new Date().toISOString();
      if (done) await put('meta', now, 'last-sync');
      announce({ state: 'idle', pending: queue.length, failed, last_sync: done ? now : last });
      return;
    }
    const total = done + ready.length;
    const progress = (sent) => announce({ state: 'syncing', done, total, bytes_done: bytesDone + sent,
                                          bytes_total: bytesDone + bytesLeft, failed, last_sync: last });
    progress(0);
    const entry = ready[0];
    try {
      if (entry.type === 'answer') {
        done += await sendAnswers(ready.filter((e) => e.type === 'answer' && e.inspection_id === entry.inspection_id));
      } else {
        const sent = await send(entry, progress);
        bytesDone += sent || 0;
        done += 1;
      }
      failures = 0;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        await markFailed(entry, String(error && error.message || error));
        continue;
      }
      if (error.kind === 'refused') {
        const type = error.problem && error.problem.type;
        await markFailed(entry, error.message, type ? String(type).split('/').pop() : null);
        if (entry.type === 'photo') await markPhotoRefused(entry.client_id, error.message);
        continue;
      }
      if (error.kind === 'auth') {
        announce({ state: 'signin', pending: queue.length, failed, last_sync: last, message: error.message });
        return;
      }
      failures += 1;
      const wait = retryDelay(failures, error.retryAfter);
      const offline = error.kind === 'network';
      const retryAt = new Date(Date.now() + wait).toISOString();
      const asked = error.retryAfter !== null && error.retryAfter !== undefined;
      if (asked) await put('meta', retryAt, NOT_BEFORE).catch(() => {});
      announce({ state: offline ? 'offline' : 'retrying', pending: queue.length, failed, last_sync: last,
                 retry_at: retryAt, server_asked: asked, message: error.message });
      schedule(wait);
      return;
    }
  }
}

function groupBy(list, key) {
  const groups = new Map();
  list.forEach((item) => { const k = key(item); if (!groups.has(k)) groups.set(k, []); groups.get(k).push(item); });
  return groups;
}

async function send(entry, progress) {
  if (entry.type === 'start') return sendStart(entry);
  if (entry.type === 'photo') return sendPhoto(entry, progress);
  if (entry.type === 'submit') return sendSubmit(entry);
  if (entry.type === 'interrupt') return sendInterrupt(entry);
  await remove(entry.seq);  // an entry of a kind this version does not know: nothing can send it
  return 0;
}

async function updateWork(id, change) {
  const work = (await get('work', id)) || { id };
  await put('work', { ...work, ...change(work) });
}

/** A photo the server refused shows so on its item, with the reason, until it is taken again or removed. */
async function markPhotoRefused(clientId, reason) {
  const photo = await get('photos', clientId);
  if (photo) await put('photos', { ...photo, state: 'failed', reason });
}

async function sendStart(entry) {
  const body = { client_id: entry.client_id, started_at: entry.started_at, pin: entry.pin };
  const inspection = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/start`, body);
  await updateWork(entry.inspection_id, () => ({ server_status: inspection.status }));
  await remove(entry.seq);
}

/** Up to BATCH answers of one inspection in one /sync request; each result settles its own entry. */
async function sendAnswers(batch) {
  const chosen = batch.slice(0, BATCH);
  const records = await Promise.all(chosen.map((e) => get('answers', [e.inspection_id, e.item_id])));
  const answers = [];
  chosen.forEach((entry, i) => {
    const a = records[i];
    if (a) answers.push({ item_id: a.item_id, client_id: a.client_id, result: a.result, observed: a.observed,
                          note: a.note || '', action: a.action || null, recorded_at: a.recorded_at, photos: a.photos || [] });
  });
  const orphaned = chosen.filter((e, i) => !records[i]);
  await Promise.all(orphaned.map((e) => remove(e.seq)));
  if (!answers.length) return orphaned.length;
  const { user_id: userId, inspection_id: id } = chosen[0];
  const reply = await api(userId, 'POST', `/api/v1/inspections/${id}/sync`, { answers });
  for (const result of reply.results) {
    const entry = chosen.find((e) => e.item_id === result.item_id);
    if (!entry) continue;
    await transact(['answers', 'outbox'], async (tx) => {
      const store = tx.objectStore('answers');
      const current = await store.get([id, result.item_id]);
      if (!current || current.client_id !== result.client_id) return;  // edited meanwhile: send the newer one next
      if (result.status === 'applied' || result.status === 'duplicate') {
        store.put({ ...current, state: 'sent', reason: null });
        tx.objectStore('outbox').delete(entry.seq);
      } else {
        const reason = typeof result.reason === 'string' ? result.reason : problemText({ errors: result.reason }, gettext('Rechazado.'));
        store.put({ ...current, state: 'failed', reason });
        const queued = await tx.objectStore('outbox').get(entry.seq);
        if (queued) tx.objectStore('outbox').put({ ...queued, state: STATES.failed, reason });
      }
    });
  }
  return chosen.length;
}

async function sendPhoto(entry, progress) {
  const photo = await get('photos', entry.client_id);
  if (!photo) { await remove(entry.seq); return 0; }
  const stored = await uploadPhoto(entry.user_id, photo, async (offset) => {
    await put('photos', { ...(await get('photos', photo.client_id) || photo), offset });
  }, (sent) => progress(sent));
  await transact(['photos', 'outbox'], async (tx) => {
    const current = await tx.objectStore('photos').get(photo.client_id);
    if (current) tx.objectStore('photos').put({ ...current, state: 'sent', offset: current.size, photo_id: stored.id, reason: null });
    tx.objectStore('outbox').delete(entry.seq);
  });
  return photo.size - (photo.offset || 0);
}

async function sendSubmit(entry) {
  const work = await get('work', entry.inspection_id);
  const closing = work.closing;
  const body = { client_id: entry.client_id, signature: closing.signature, master_name: closing.master_name,
                 signatures: work.signatures, submitted_at: closing.submitted_at };
  if (closing.valid_until) body.valid_until = closing.valid_until;
  const result = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/submit`, body, { timeout: 60000 });
  await updateWork(entry.inspection_id, () => ({ server_status: 'submitted', result }));
  await remove(entry.seq);
  await forgetConfirmed(entry.inspection_id);
}

async function sendInterrupt(entry) {
  const inspection = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/interrupt`,
    { reason: entry.reason_text });
  await updateWork(entry.inspection_id, () => ({ server_status: inspection.status }));
  await remove(entry.seq);
  await forgetConfirmed(entry.inspection_id);
}

/** Once the server confirmed every entry of a closed inspection, drop its bulky local copy (photos, answers). */
export async function forgetConfirmed(id) {
  if ((await byInspection('outbox', id)).length) return false;
  const [answers, photos] = await Promise.all([byInspection('answers', id), byInspection('photos', id)]);
  await transact(['answers', 'photos', 'packages'], (tx) => {
    answers.forEach((a) => tx.objectStore('answers').delete([a.inspection_id, a.item_id]));
    photos.forEach((p) => tx.objectStore('photos').delete(p.client_id));
    tx.objectStore('packages').delete(id);
  });
  return true;
}

