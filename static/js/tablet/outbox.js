// What the tablet still owes the server, in the order the inspector did it.
//
// Entry types (all carry user_id and inspection_id): `start`, `answer` (one per item: the current
// local answer is read when it is sent, so editing an item never queues two), `photo` (its bytes
// live in the photos store), `submit` and `interrupt`. An entry leaves the outbox only when the
// server has confirmed it; a refusal keeps it, with the server's reason, until the inspector acts.
import { all, byInspection, del, get, put, transact } from './store.js';

export const STATES = { pending: 'pending', failed: 'failed' };

/** Queue one entry; returns it with its sequence number. */
export async function enqueue(entry) {
  const record = { state: STATES.pending, attempts: 0, reason: null, queued_at: new Date().toISOString(), ...entry };
  record.seq = await put('outbox', record);
  await wake();
  return record;
}

/** Queue the item's answer unless it is already queued; a refused one is tried again. */
export async function enqueueAnswer(userId, inspectionId, itemId) {
  const entries = await byInspection('outbox', inspectionId);
  const queued = entries.find((e) => e.type === 'answer' && e.item_id === itemId);
  if (queued) {
    if (queued.state !== STATES.pending) await put('outbox', { ...queued, state: STATES.pending, reason: null });
    await wake();
    return queued;
  }
  return enqueue({ type: 'answer', user_id: userId, inspection_id: inspectionId, item_id: itemId });
}

/** Every entry, oldest first. */
export async function entries() {
  return (await all('outbox')).sort((a, b) => a.seq - b.seq);
}

/** Entries still owed, for one inspection or all. */
export async function pendingFor(inspectionId) {
  return (await byInspection('outbox', inspectionId)).sort((a, b) => a.seq - b.seq);
}

/** Keep a refused entry with the server's words and the problem's code (the end of its `type`). */
export async function markFailed(entry, reason, code = null) {
  const current = await get('outbox', entry.seq);
  if (current) await put('outbox', { ...current, state: STATES.failed, reason, code, attempts: (current.attempts || 0) + 1 });
}

/** Try a refused entry again (the inspector fixed what the server said); a photo shows as pending again. */
export async function retry(seq) {
  const current = await get('outbox', seq);
  if (current) await put('outbox', { ...current, state: STATES.pending, reason: null });
  if (current && current.type === 'photo') {
    const photo = await get('photos', current.client_id);
    if (photo) await put('photos', { ...photo, state: 'pending', reason: null });
  }
  await wake();
}

export const remove = (seq) => del('outbox', seq);

/** Remove a photo that has not reached the server yet, with its entry (one transaction). */
export async function discardPhoto(clientId) {
  const queued = (await all('outbox')).find((e) => e.type === 'photo' && e.client_id === clientId);
  await transact(['outbox', 'photos'], (tx) => {
    if (queued) tx.objectStore('outbox').delete(queued.seq);
    tx.objectStore('photos').delete(clientId);
  });
}

/**
 * Whether an entry must wait for an earlier refusal of its inspection to be resolved: nothing
 * goes before a refused start, and a closing waits for every other entry.
 */
export function isHeld(entry, inspectionEntries) {
  const failed = inspectionEntries.filter((e) => e.state === STATES.failed && e.seq !== entry.seq);
  if (failed.some((e) => e.type === 'start') && entry.type !== 'start') return true;
  if (entry.type === 'submit') return inspectionEntries.some((e) => e.seq !== entry.seq && e.type !== 'submit');
  return false;
}

// Listeners that want to know the outbox changed (the sync engine registers itself here).
const sleepers = new Set();
export function onQueued(fn) { sleepers.add(fn); }
async function wake() { sleepers.forEach((fn) => { try { fn(); } catch (e) { /* a listener's problem */ } }); }
