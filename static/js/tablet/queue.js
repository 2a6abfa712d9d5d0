// The outbox's rules (queue, hold, refuse, retry, discard) over any store with the IndexedDB store's interface.
//
// No DOM and no clock of its own: the store and `now()` are passed in, so node runs it on a store in memory.
// Entry types (all carry user_id and inspection_id): `start`, `answer` (one per item: the current
// local answer is read when it is sent, so editing an item never queues two), `photo` (its bytes
// live in the photos store), `marks` (the layer drawn over a photo, issue 24: sent once its photo is
// confirmed, one entry per photo, replaced while unsent), `submit` and `interrupt`. A police phone's patrol check queues the same
// way under its local key (`patrol:<client id>` as inspection_id): `patrol-start`, `patrol-answer`,
// `patrol-photo`, `patrol-close`. An entry leaves the outbox only when the server has confirmed it; a
// refusal keeps it, with the server's reason, until the inspector or officer acts.

export const STATES = { pending: 'pending', failed: 'failed' };
// The entry that creates the record on the server, and the one that closes it, of each kind of work.
const STARTS = new Set(['start', 'patrol-start']);
const CLOSINGS = new Set(['submit', 'patrol-close']);

/**
 * Whether an entry must wait for an earlier refusal of its inspection (or check) to be resolved: nothing
 * goes before a refused start, and a closing waits for every other entry.
 */
export function isHeld(entry, inspectionEntries) {
  const failed = inspectionEntries.filter((e) => e.state === STATES.failed && e.seq !== entry.seq);
  if (failed.some((e) => STARTS.has(e.type)) && !STARTS.has(entry.type)) return true;
  if (CLOSINGS.has(entry.type)) return inspectionEntries.some((e) => e.seq !== entry.seq && !CLOSINGS.has(e.type));
  // Marks name the photo by the server's id, known once the photo's upload is confirmed.
  if (entry.type === 'marks') return inspectionEntries.some((e) => e.type === 'photo' && e.client_id === entry.photo_client_id);
  return false;
}

/** Of a queue (oldest first): the entries that may be sent now, in order, and how many are refused. */
export function readyEntries(queue) {
  const byInspection = new Map();
  queue.forEach((e) => {
    if (!byInspection.has(e.inspection_id)) byInspection.set(e.inspection_id, []);
    byInspection.get(e.inspection_id).push(e);
  });
  const ready = queue.filter((e) => e.state === STATES.pending && !isHeld(e, byInspection.get(e.inspection_id)));
  return { ready, failed: queue.filter((e) => e.state === STATES.failed).length };
}

/** The outbox kept in `store`; `wake()` is told of every new or retried entry. */
export function outboxOn(store, { now, wake = async () => {} }) {
  /** Queue one entry; returns it with its sequence number. */
  const fresh = (entry) => ({ state: STATES.pending, attempts: 0, reason: null, queued_at: new Date(now()).toISOString(), ...entry });

  async function enqueue(entry) {
    const record = fresh(entry);
    record.seq = await store.put('outbox', record);
    await wake();
    return record;
  }

  /**
   * Keep `value` in the object store `name` and queue `entry` in one transaction (one round trip): a start, a closing or
   * an interruption is never kept on the tablet without its entry, nor queued unkept.
   */
  async function keepAndQueue(name, value, entry) {
    await store.transact([name, 'outbox'], (tx) => {
      tx.objectStore(name).put(value);
      tx.objectStore('outbox').put(fresh(entry));
    });
    await wake();
  }

  /**
   * Keep an item's answer and, when it can be sent (`pending`), queue it (as `type`: a patrol check's is
   * `patrol-answer`) unless it is queued already (a refused one is tried again): one transaction, so an answer is never kept without its entry, nor queued unkept.
   */
  async function keepAnswer(userId, answer, type = 'answer') {
    const sendable = answer.state === 'pending';
    await store.transact(['answers', 'outbox'], async (tx) => {
      const outbox = tx.objectStore('outbox');
      // Its own entry by its key: the inspection's other entries are not read (an offline inspection queues dozens).
      const queued = sendable ? await outbox.index('by_item').get([answer.inspection_id, type, answer.item_id]) : null;
      tx.objectStore('answers').put(answer);
      if (sendable && !queued) {
        outbox.put(fresh({ type, user_id: userId, inspection_id: answer.inspection_id, item_id: answer.item_id }));
      } else if (queued && queued.state !== STATES.pending) {
        outbox.put({ ...queued, state: STATES.pending, reason: null });
      }
    });
    if (sendable) await wake();
  }

  /** Every entry, oldest first. */
  async function entries() {
    return (await store.all('outbox')).sort((a, b) => a.seq - b.seq);
  }

  /** Entries still owed for one inspection, oldest first. */
  async function pendingFor(inspectionId) {
    return (await store.byInspection('outbox', inspectionId)).sort((a, b) => a.seq - b.seq);
  }

  /** Keep a refused entry with the server's words and the problem's code (the end of its `type`). */
  async function markFailed(entry, reason, code = null) {
    const current = await store.get('outbox', entry.seq);
    if (current) await store.put('outbox', { ...current, state: STATES.failed, reason, code, attempts: (current.attempts || 0) + 1 });
  }

  /** Try a refused entry again (the inspector fixed what the server said); a photo shows as pending again. */
  async function retry(seq) {
    const current = await store.get('outbox', seq);
    if (current) await store.put('outbox', { ...current, state: STATES.pending, reason: null });
    if (current && (current.type === 'photo' || current.type === 'patrol-photo')) {
      const photo = await store.get('photos', current.client_id);
      if (photo) await store.put('photos', { ...photo, state: 'pending', reason: null });
    }
    await wake();
  }

  const remove = (seq) => store.del('outbox', seq);

  /** Remove a photo that has not reached the server yet, with its entry (one transaction). */
  async function discardPhoto(clientId) {
    const queued = (await store.all('outbox')).filter((e) => (e.type === 'photo' && e.client_id === clientId)
                                                      || (e.type === 'marks' && e.photo_client_id === clientId));
    await store.transact(['outbox', 'photos'], (tx) => {
      queued.forEach((e) => tx.objectStore('outbox').delete(e.seq));
      tx.objectStore('photos').delete(clientId);
    });
  }

  /**
   * Keep the marks drawn over a photo (on its record, for the screen) and queue them under a fresh client_id; an
   * entry not yet sent is replaced (one transaction), so only the last drawing of an offline session travels.
   */
  async function keepMarks(userId, photoClientId, layer, clientId) {
    await store.transact(['photos', 'outbox'], async (tx) => {
      const photo = await tx.objectStore('photos').get(photoClientId);
      if (!photo) return;
      const outbox = tx.objectStore('outbox');
      const queued = (await outbox.index('by_inspection').getAll(photo.inspection_id))
        .find((e) => e.type === 'marks' && e.photo_client_id === photoClientId);
      tx.objectStore('photos').put({ ...photo, marks: layer, marks_state: 'pending', marks_reason: null });
      const entry = { type: 'marks', user_id: userId, inspection_id: photo.inspection_id, photo_client_id: photoClientId,
                      client_id: clientId, marks: layer };
      outbox.put(queued ? { ...queued, ...entry, state: STATES.pending, reason: null } : fresh(entry));
    });
    await wake();
  }

  return { enqueue, keepAndQueue, keepAnswer, keepMarks, entries, pendingFor, markFailed, retry, remove, discardPhoto };
}
