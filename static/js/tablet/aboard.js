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
