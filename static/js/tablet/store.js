// The tablet's own copy of its work, in IndexedDB (through the vendored `idb`).
//
// Stores (database `baliza-tablet`, version 2):
//   meta      key → value: `device:<user>` (the device token), `agenda:<user>`, `limits`, `sync:<user>`
//   packages  one per inspection taken aboard: the server's package (vessel, pinned items, deficiencies)
//   work      one per inspection worked on here: local status, start, closing data, signatures, result
//   answers   [inspection_id, item_id] → the current local answer with its client_id and sync state
//   photos    client_id → the bytes to send (a Blob, or an ArrayBuffer where Blobs cannot be stored),
//             a thumbnail, the SHA-256 of the bytes, and how far the upload got
//   outbox    seq → what still has to reach the server, in the order it was done; `by_item` (version 2) finds an
//             item's queued answer by [inspection_id, type, item_id] without reading the inspection's whole outbox
//
// Browsers close IndexedDB connections (memory pressure on iOS, a version change in another tab):
// every call reopens the database when it was closed and retries once. A full disk is reported in
// Spanish (`StorageFull`) and nothing already stored is touched.
import { openDB } from '/static/vendor/idb.js';
import { gettext } from '../i18n.js';

const NAME = 'baliza-tablet';
let opening = null;

/** The write failed because the device is out of space; what is already stored stays. */
export class StorageFull extends Error {
  constructor() {
    super(gettext('La tableta no tiene espacio para guardar esto. Envíe lo pendiente o libere espacio; lo ya guardado se conserva.'));
    this.name = 'StorageFull';
  }
}

function open() {
  if (!opening) {
    opening = openDB(NAME, 2, {
      upgrade(db, oldVersion, newVersion, tx) {  // each version's steps in turn: what is stored stays
        if (oldVersion < 1) createStores(db);
        if (oldVersion < 2) tx.objectStore('outbox').createIndex('by_item', ['inspection_id', 'type', 'item_id']);
      },
      blocking() { forget(); },      // another tab wants a newer version: let it have the database
      terminated() { forget(); },    // the browser closed it: reopen on the next call
    }).then((db) => {
      db.addEventListener('close', forget);
      return db;
    }, (error) => { opening = null; throw error; });
  }
  return opening;
}

/** Version 1's stores. */
function createStores(db) {
  db.createObjectStore('meta');
  db.createObjectStore('packages', { keyPath: 'id' });
  db.createObjectStore('work', { keyPath: 'id' });
  const answers = db.createObjectStore('answers', { keyPath: ['inspection_id', 'item_id'] });
  answers.createIndex('by_inspection', 'inspection_id');
  const photos = db.createObjectStore('photos', { keyPath: 'client_id' });
  photos.createIndex('by_inspection', 'inspection_id');
  const outbox = db.createObjectStore('outbox', { keyPath: 'seq', autoIncrement: true });
  outbox.createIndex('by_inspection', 'inspection_id');
}

function forget() {
  const current = opening;
  opening = null;
  if (current) current.then((db) => { try { db.close(); } catch (e) { /* already closed */ } }, () => {});
}

function isClosed(error) {
  return error && (error.name === 'InvalidStateError' || error.name === 'TransactionInactiveError'
    || /closing|closed/i.test(error.message || ''));
}

/** Run `work(db)`; reopen and retry once if the browser had closed the database; full disk → StorageFull. */
export async function withDB(work) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work(await open());
    } catch (error) {
      if (error && error.name === 'QuotaExceededError') throw new StorageFull();
      if (attempt === 0 && isClosed(error)) { forget(); continue; }
      throw error;
    }
  }
}

export const get = (store, key) => withDB((db) => db.get(store, key));
export const put = (store, value, key) => withDB((db) => db.put(store, value, key));
export const del = (store, key) => withDB((db) => db.delete(store, key));
export const all = (store) => withDB((db) => db.getAll(store));
export const byInspection = (store, id) => withDB((db) => db.getAllFromIndex(store, 'by_inspection', id));

/** What the inspection screen opens with, read in one transaction: its package, work, answers and photos. */
export const inspectionRecords = (id) => withDB((db) => {
  const tx = db.transaction(['packages', 'work', 'answers', 'photos']);
  const mine = (store) => tx.objectStore(store).index('by_inspection').getAll(id);
  return Promise.all([tx.objectStore('packages').get(id), tx.objectStore('work').get(id), mine('answers'), mine('photos')])
    .then(([pkg, work, answers, photos]) => ({ pkg, work, answers, photos }));
});

/** Several writes in one transaction: all of them land or none (`fn(tx)` only queues requests). */
export function transact(stores, fn) {
  return withDB(async (db) => {
    const tx = db.transaction(stores, 'readwrite');
    const result = await fn(tx);
    await tx.done;
    return result;
  });
}

/** Bytes as something IndexedDB can keep here: the Blob itself, or its ArrayBuffer where Blobs fail. */
let blobsWork = null;
export async function storableBytes(blob) {
  if (blobsWork === null) {
    try {
      await put('meta', new Blob(['x'], { type: 'text/plain' }), 'blob-probe');
      const back = await get('meta', 'blob-probe');
      blobsWork = back instanceof Blob && (await back.text()) === 'x';
    } catch (error) {
      if (error instanceof StorageFull) throw error;
      blobsWork = false;  // older Safari: DataCloneError on Blobs in IndexedDB
    }
  }
  return blobsWork ? blob : { buffer: await blob.arrayBuffer(), type: blob.type };
}

/** A stored photo's bytes as a Blob, whichever way they were kept. */
export function asBlob(stored) {
  if (!stored) return null;
  return stored instanceof Blob ? stored : new Blob([stored.buffer], { type: stored.type });
}

/** Ask the browser not to evict this site's data; whether it agreed. */
export async function askPersistence() {
  if (!(navigator.storage && navigator.storage.persist)) return false;
  if (await navigator.storage.persisted()) return true;
  try { return await navigator.storage.persist(); } catch (error) { return false; }
}

/** A fresh client-generated id for a write. */
export function newId() {
  return crypto.randomUUID ? crypto.randomUUID() : fallbackUuid();
}

function fallbackUuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
