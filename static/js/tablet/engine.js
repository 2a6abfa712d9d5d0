// The outbox's sync state machine (what to send next, what each server answer changes), pure: store, server and clock passed in.
//
// sync.js binds it to IndexedDB, fetch and the page; node tests bind it to a store in memory and a fake server.
import { ApiError, problemText } from './errors.js';
import { outboxOn, readyEntries, STATES } from './queue.js';
import { retryDelay } from './backoff.js';
import { gettext } from '../i18n.js';

export const BATCH = 200;
export const NOT_BEFORE = 'retry-not-before';  // meta key: no attempt before this moment (the server's Retry-After)

/**
 * What a failed send means, after `failures` failures in a row (this one included):
 *   {action: 'refuse', reason, code, photo}  keep the entry with the server's words (a photo shows refused too)
 *   {action: 'signin', message}               stop until the inspector signs in again
 *   {action: 'wait', wait, state, asked, retry_at, message}  stop; try again in `wait` ms
 */
export function afterFailure(error, failures, now, random = Math.random) {
  if (!(error instanceof ApiError)) return { action: 'refuse', reason: String(error && error.message || error), code: null, photo: false };
  if (error.kind === 'refused') {
    const type = error.problem && error.problem.type;
    return { action: 'refuse', reason: error.message, code: type ? String(type).split('/').pop() : null, photo: true };
  }
  if (error.kind === 'auth') return { action: 'signin', message: error.message };
  const wait = retryDelay(failures, error.retryAfter, random);
  const asked = error.retryAfter !== null && error.retryAfter !== undefined;
  return { action: 'wait', wait, state: error.kind === 'network' ? 'offline' : 'retrying', asked,
           retry_at: new Date(now + wait).toISOString(), message: error.message };
}

/** The answer as the server's /sync takes it. */
export function answerPayload(a) {
  return { item_id: a.item_id, client_id: a.client_id, result: a.result, observed: a.observed,
           note: a.note || '', action: a.action || null, recorded_at: a.recorded_at, photos: a.photos || [] };
}

/** A patrol check's answer as PUT …/answers/{item_id} takes it. */
export function patrolAnswerBody(a) {
  return { client_id: a.client_id, result: a.result, observed: a.observed ?? null, note: a.note || '',
           recorded_at: a.recorded_at };
}

/** The words kept on an answer the server did not apply (a string, or its field errors). */
export function refusalText(result) {
  return typeof result.reason === 'string' ? result.reason : problemText({ errors: result.reason }, gettext('Rechazado.'));
}

/**
 * One engine over `store`. `api(userId, method, path, json, options)` resolves with the server's JSON
 * or throws an ApiError; `upload(userId, photo, saveOffset, onProgress)` resolves with the server's photo
 * record; `now()` is the time in ms; `announce(status)` receives every status (syncing n of m, idle,
 * offline, retrying, signin). `run()` resolves with {wait}: ms until the next attempt, or null.
 */
export function createEngine({ store, api, upload, now, random = Math.random, announce = () => {} }) {
  const outbox = outboxOn(store, { now });
  let failures = 0;
  const iso = (ms = now()) => new Date(ms).toISOString();

  /** The ms left of the wait the server asked for (kept across tabs, the worker and reloads), else 0. */
  async function serverWait() {
    const until = await store.get('meta', NOT_BEFORE).catch(() => null);
    return until ? Math.max(0, Date.parse(until) - now()) : 0;
  }

  async function run(force = false) {
    const asked = await serverWait();
    if (asked && !force) return { wait: asked };  // the outbox stays as it is, in order
    if (asked || force) await store.del('meta', NOT_BEFORE).catch(() => {});
    let done = 0;
    let bytesDone = 0;
    const last = await store.get('meta', 'last-sync');
    for (;;) {
      const queue = await outbox.entries();
      const { ready, failed } = readyEntries(queue);
      const photos = await store.all('photos');
      const bytesLeft = photos.filter((p) => p.state !== 'sent').reduce((sum, p) => sum + (p.size - (p.offset || 0)), 0);
      if (!ready.length) {
        const at = iso();
        if (done) await store.put('meta', at, 'last-sync');
        announce({ state: 'idle', pending: queue.length, failed, last_sync: done ? at : last });
        return { wait: null };
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
        const next = afterFailure(error, failures + 1, now(), random);
        if (next.action === 'refuse') {
          await outbox.markFailed(entry, next.reason, next.code);
          if (next.photo && (entry.type === 'photo' || entry.type === 'patrol-photo')) await markPhotoRefused(entry.client_id, next.reason);
          if (entry.type === 'marks') await markPhotoRefused(entry.photo_client_id, next.reason, 'marks_');
          continue;
        }
        if (next.action === 'signin') {
          announce({ state: 'signin', pending: queue.length, failed, last_sync: last, message: next.message });
          return { wait: null };
        }
        failures += 1;
        if (next.asked) await store.put('meta', next.retry_at, NOT_BEFORE).catch(() => {});
        announce({ state: next.state, pending: queue.length, failed, last_sync: last,
                   retry_at: next.retry_at, server_asked: next.asked, message: next.message });
        return { wait: next.wait };
      }
    }
  }

  async function send(entry, progress) {
    if (entry.type === 'start') return sendStart(entry);
    if (entry.type === 'photo') return sendPhoto(entry, progress);
    if (entry.type === 'marks') return sendMarks(entry);
    if (entry.type === 'submit') return sendSubmit(entry);
    if (entry.type === 'interrupt') return sendInterrupt(entry);
    if (entry.type in PATROL) return PATROL[entry.type](entry, progress);
    await outbox.remove(entry.seq);  // an entry of a kind this version does not know: nothing can send it
    return 0;
  }

  async function updateWork(id, change) {
    const work = (await store.get('work', id)) || { id };
    await store.put('work', { ...work, ...change(work) });
  }

  /** A photo the server refused shows so on its item, with the reason, until it is taken again or removed. */
  async function markPhotoRefused(clientId, reason, prefix = '') {  // prefix 'marks_': its marks were refused
    const photo = await store.get('photos', clientId);
    if (photo) await store.put('photos', { ...photo, [`${prefix}state`]: 'failed', [`${prefix}reason`]: reason });
  }

  async function sendStart(entry) {
    const body = { client_id: entry.client_id, started_at: entry.started_at, pin: entry.pin };
    const inspection = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/start`, body);
    await updateWork(entry.inspection_id, () => ({ server_status: inspection.status }));
    await outbox.remove(entry.seq);
  }

  /** Up to BATCH answers of one inspection in one /sync request; each result settles its own entry. */
  async function sendAnswers(batch) {
    const chosen = batch.slice(0, BATCH);
    const records = await Promise.all(chosen.map((e) => store.get('answers', [e.inspection_id, e.item_id])));
    const answers = [];
    chosen.forEach((entry, i) => { if (records[i]) answers.push(answerPayload(records[i])); });
    const orphaned = chosen.filter((e, i) => !records[i]);
    await Promise.all(orphaned.map((e) => outbox.remove(e.seq)));
    if (!answers.length) return orphaned.length;
    const { user_id: userId, inspection_id: id } = chosen[0];
    const reply = await api(userId, 'POST', `/api/v1/inspections/${id}/sync`, { answers });
    for (const result of reply.results) {
      const entry = chosen.find((e) => e.item_id === result.item_id);
      if (!entry) continue;
      await store.transact(['answers', 'outbox'], async (tx) => {
        const kept = tx.objectStore('answers');
        const current = await kept.get([id, result.item_id]);
        if (!current || current.client_id !== result.client_id) return;  // edited meanwhile: send the newer one next
        if (result.status === 'applied' || result.status === 'duplicate') {
          kept.put({ ...current, state: 'sent', reason: null });
          tx.objectStore('outbox').delete(entry.seq);
        } else {
          const reason = refusalText(result);
          kept.put({ ...current, state: 'failed', reason });
          const queued = await tx.objectStore('outbox').get(entry.seq);
          if (queued) tx.objectStore('outbox').put({ ...queued, state: STATES.failed, reason });
        }
      });
    }
    return chosen.length;
  }

  /** A photo, resumable from the last byte the server holds; `base` names a patrol check's uploads. */
  async function sendPhoto(entry, progress, base) {
    const photo = await store.get('photos', entry.client_id);
    if (!photo) { await outbox.remove(entry.seq); return 0; }
    const stored = await upload(entry.user_id, photo, async (offset) => {
      await store.put('photos', { ...(await store.get('photos', photo.client_id) || photo), offset });
    }, (sent) => progress(sent), base ? { base } : undefined);
    await store.transact(['photos', 'outbox'], async (tx) => {
      const current = await tx.objectStore('photos').get(photo.client_id);
      if (current) tx.objectStore('photos').put({ ...current, state: 'sent', offset: current.size, photo_id: stored.id, reason: null });
      tx.objectStore('outbox').delete(entry.seq);
    });
    return photo.size - (photo.offset || 0);
  }

  /** The marks over a confirmed photo, under the server's photo id; a retry is the same client_id, never a copy. */
  async function sendMarks(entry) {
    const photo = await store.get('photos', entry.photo_client_id);
    if (photo && photo.photo_id) {
      await api(entry.user_id, 'PUT', `/api/v1/inspections/${entry.inspection_id}/photos/${photo.photo_id}/marks`,
                { client_id: entry.client_id, marks: entry.marks });
    }
    await store.transact(['photos', 'outbox'], async (tx) => {
      const current = await tx.objectStore('photos').get(entry.photo_client_id);
      const queued = await tx.objectStore('outbox').get(entry.seq);
      if (queued && queued.client_id !== entry.client_id) return;  // drawn again meanwhile: send the newer one next
      if (current) tx.objectStore('photos').put({ ...current, marks_state: 'sent', marks_reason: null });
      tx.objectStore('outbox').delete(entry.seq);
    });
    return 0;
  }

  async function sendSubmit(entry) {
    const work = await store.get('work', entry.inspection_id);
    const closing = work.closing;
    const body = { client_id: entry.client_id, signature: closing.signature, master_name: closing.master_name,
                   signatures: work.signatures, submitted_at: closing.submitted_at };
    if (closing.valid_until) body.valid_until = closing.valid_until;
    if (closing.reports) body.reports = closing.reports;  // art. 233, the seguridad closing's services
    if (closing.valve_reseals) body.valve_reseals = closing.valve_reseals;
    const result = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/submit`, body, { timeout: 60000 });
    await updateWork(entry.inspection_id, () => ({ server_status: 'submitted', result }));
    await outbox.remove(entry.seq);
    await forgetConfirmed(entry.inspection_id);
  }

  async function sendInterrupt(entry) {
    const inspection = await api(entry.user_id, 'POST', `/api/v1/inspections/${entry.inspection_id}/interrupt`,
      { reason: entry.reason_text });
    await updateWork(entry.inspection_id, () => ({ server_status: inspection.status }));
    await outbox.remove(entry.seq);
    await forgetConfirmed(entry.inspection_id);
  }

  // --- a police phone's patrol check (inspection/patrol/api.py): its entries wait under its local key, and
  // the server's id, learnt from the start, is kept in `work` for the rest.
  const PATROL = {
    async 'patrol-start'(entry) {
      const check = await api(entry.user_id, 'POST', '/api/v1/patrol-checks', entry.body);
      await updateWork(entry.inspection_id, () => ({ server_id: check.id, registration: check.registration || null,
                                                     pinned: check.items.map((item) => item.id) }));
      await outbox.remove(entry.seq);
      return 0;
    },
    /** The current local answer; one to an item the server did not pin for this vessel (the phone showed every
     * item of the list without signal) is kept here as not sent, with why. */
    async 'patrol-answer'(entry) {
      const [work, answer] = await Promise.all([store.get('work', entry.inspection_id),
                                                store.get('answers', [entry.inspection_id, entry.item_id])]);
      if (answer && work.pinned && !work.pinned.includes(entry.item_id)) {
        await store.put('answers', { ...answer, state: 'skipped', reason: gettext('No corresponde a este buque.') });
      } else if (answer) {
        await api(entry.user_id, 'PUT', `/api/v1/patrol-checks/${work.server_id}/answers/${encodeURIComponent(entry.item_id)}`,
                  patrolAnswerBody(answer));
        const current = await store.get('answers', [entry.inspection_id, entry.item_id]);
        if (current && current.client_id === answer.client_id) await store.put('answers', { ...current, state: 'sent', reason: null });
        else if (current) { await outbox.enqueue({ type: 'patrol-answer', user_id: entry.user_id, inspection_id: entry.inspection_id, item_id: entry.item_id }); }
      }
      await outbox.remove(entry.seq);
      return 0;
    },
    /** A photo, resumable as an inspection's: a retry after a cut sends only the bytes the server lacks. */
    async 'patrol-photo'(entry, progress) {
      const work = await store.get('work', entry.inspection_id);
      return sendPhoto(entry, progress, `/api/v1/patrol-checks/${work.server_id}/uploads`);
    },
    async 'patrol-close'(entry) {
      const work = await store.get('work', entry.inspection_id);
      const check = await api(entry.user_id, 'POST', `/api/v1/patrol-checks/${work.server_id}/close`, entry.body);
      await updateWork(entry.inspection_id, () => ({ server_status: 'closed', outcome: check.outcome }));
      await outbox.remove(entry.seq);
      await forgetConfirmed(entry.inspection_id);
      return 0;
    },
  };

  /** Once the server confirmed every entry of a closed inspection, drop its bulky local copy (photos, answers). */
  async function forgetConfirmed(id) {
    if ((await store.byInspection('outbox', id)).length) return false;
    const [answers, photos] = await Promise.all([store.byInspection('answers', id), store.byInspection('photos', id)]);
    await store.transact(['answers', 'photos', 'packages'], (tx) => {
      answers.forEach((a) => tx.objectStore('answers').delete([a.inspection_id, a.item_id]));
      photos.forEach((p) => tx.objectStore('photos').delete(p.client_id));
      tx.objectStore('packages').delete(id);
    });
    return true;
  }

  return {
    run,
    forgetConfirmed,
    /** The link is back (the `online` event): the next failure starts the backoff from the beginning. */
    resetFailures() { failures = 0; },
    get failures() { return failures; },
  };
}
