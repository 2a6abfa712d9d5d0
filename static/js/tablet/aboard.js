// Taking inspections aboard: while there is signal, keep on the device everything each one needs.
import { get, put, transact } from './store.js';
import { api } from './net.js';

export const AHEAD_DAYS = 7;   // inspections this close are kept on the device by themselves
const LISTED_DAYS = 60;        // the agenda shows this far ahead; further ones are taken aboard on request

/** Fetch the agenda and keep it; resolves with it (the kept copy when offline). */
export async function refreshAgenda(userId) {
  const agenda = await api(userId, 'GET', `/api/v1/agenda?days=${LISTED_DAYS}`);
  const kept = { ...agenda, fetched_at: new Date().toISOString() };
  await put('meta', kept, `agenda:${userId}`);
  return kept;
}

export const keptAgenda = (userId) => get('meta', `agenda:${userId}`);

/** Whether an agenda entry is within the days kept aboard automatically. */
export function dueSoon(entry, today, days = AHEAD_DAYS) {
  const limit = new Date(`${today}T00:00:00Z`);
  limit.setUTCDate(limit.getUTCDate() + days);
  return entry.scheduled_on <= limit.toISOString().slice(0, 10);
}

/**
 * Download one inspection's package and keep it. A package already being worked on here keeps its
 * pinned items (the inspector answered against them); answers the server holds and the device does
 * not (started on another device) are kept as already sent.
 */
export async function takeAboard(userId, inspectionId) {
  const pkg = await api(userId, 'GET', `/api/v1/inspections/${inspectionId}/package`);
  const work = await get('work', inspectionId);
  const existing = await get('packages', inspectionId);
  if (existing && work && work.started_at) {
    await put('packages', { ...existing, refreshed_at: new Date().toISOString(),
                            package: { ...existing.package, open_deficiencies: pkg.open_deficiencies, photo_limits: pkg.photo_limits } });
    return existing;
  }
  await transact(['packages', 'answers', 'meta'], async (tx) => {
    tx.objectStore('packages').put({ id: inspectionId, user_id: userId, fetched_at: new Date().toISOString(), package: pkg });
    tx.objectStore('meta').put(pkg.photo_limits, 'limits');
    for (const answer of pkg.answers || []) {
      const key = [inspectionId, answer.item_id];
      if (!(await tx.objectStore('answers').get(key))) {
        tx.objectStore('answers').put({ ...answer, inspection_id: inspectionId, state: 'sent' });
      }
    }
  });
  return get('packages', inspectionId);
}

/**
 * The checklist or the vessel changed after the inspection was taken aboard, and the server refused
 * the offline start (409 checklist-changed): download the inspection again, start against the new
 * pin, and keep every answer whose item still exists (the others are listed back to the inspector).
 */
export async function takeAboardAgain(userId, inspectionId) {
  const pkg = await api(userId, 'GET', `/api/v1/inspections/${inspectionId}/package`);
  const kept = new Set(pkg.items.map((item) => item.id));
  const dropped = [];
  await transact(['packages', 'answers', 'outbox'], async (tx) => {
    tx.objectStore('packages').put({ id: inspectionId, user_id: userId, fetched_at: new Date().toISOString(), package: pkg });
    for (const answer of await tx.objectStore('answers').index('by_inspection').getAll(inspectionId)) {
      if (!kept.has(answer.item_id)) {
        dropped.push(answer.item_id);
        tx.objectStore('answers').delete([inspectionId, answer.item_id]);
      }
    }
    for (const entry of await tx.objectStore('outbox').index('by_inspection').getAll(inspectionId)) {
      if (entry.type === 'start') tx.objectStore('outbox').put({ ...entry, pin: pkg.pin, state: 'pending', reason: null, code: null });
      else if (entry.type === 'answer' && !kept.has(entry.item_id)) tx.objectStore('outbox').delete(entry.seq);
    }
  });
  return dropped;
}
