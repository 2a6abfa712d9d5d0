// The sync engine: empties the outbox whenever there is signal, by itself, with no reload.
//
// One engine at a time across tabs and the service worker (Web Locks). Triggers: a new entry, the
// `online` event, the page becoming visible, a timer, and Background Sync where the browser has it
// (the service worker runs this same module then). A failure of the link or of the server waits with
// exponential backoff and jitter, or as long as the server's Retry-After asked (503 of a store that is
// down, 429 of a rate limit; at most an hour), then tries again; an expired sign-in waits for a new one; a refusal
// is kept on the entry with the server's words. Progress goes to every open page over a
// BroadcastChannel: offline / syncing n of m (bytes) / up to date, with the last sync time.
// What is sent and how each answer changes the outbox is engine.js; this binds it to IndexedDB,
// the network, the clock, the timers and the pages.
import * as store from './store.js';
import { api } from './net.js';
import { onQueued } from './outbox.js';
import { uploadPhoto } from './uploads.js';
import { createEngine } from './engine.js';

const LOCK = 'baliza-outbox';
const CHANNEL = 'baliza-sync';
const TIMER_MS = 30000;
const SETTLE_MS = 600;

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
  // Kept for the next page to show at once; the progress of a send in course is not worth a write per step.
  if (status.state !== 'syncing') store.put('meta', status, 'sync-status').catch(() => {});
}

if (channel) channel.onmessage = (event) => { status = event.data; listeners.forEach((fn) => fn(status)); };

const engine = createEngine({ store, api, upload: uploadPhoto, now: () => Date.now(), random: Math.random, announce });

/** Once the server confirmed every entry of a closed inspection, drop its bulky local copy (photos, answers). */
export const forgetConfirmed = (id) => engine.forgetConfirmed(id);

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

/**
 * Run `fn` while no engine (in any tab or the worker) is sending: what it takes out of the outbox cannot be half
 * sent meanwhile. Resolves with `fn`'s result once the engine in progress, if any, has finished.
 */
export function whileNotSending(fn) {
  if (navigator.locks) return navigator.locks.request(LOCK, () => fn());
  return Promise.resolve(running).then(() => fn());
}

async function run(force) {
  const { wait } = await engine.run(force);
  if (wait !== null) schedule(wait);
}

function schedule(ms) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => { retryTimer = null; syncNow(); }, ms);
}

let settling = null;

/** Sync once the inspector pauses (SETTLE_MS after the last call): answers tapped in a row go in one request, and the
 * send does not compete with the taps for the screen or the store (issue 22). */
export function syncSoon() {
  clearTimeout(settling);
  settling = setTimeout(() => { settling = null; syncNow(); }, SETTLE_MS);
}

/** Register the page (or worker) triggers once. A new entry, and the first look at what an earlier visit left, are
 * sent once the inspector pauses (syncSoon). */
export function startSyncing() {
  onQueued(() => {
    requestBackgroundSync();
    syncSoon();
  });
  if (typeof window !== 'undefined') {
    window.addEventListener('online', () => { engine.resetFailures(); syncNow(); });
    window.addEventListener('offline', () => announce({ ...status, state: 'offline' }));
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') syncNow(); });
  }
  setInterval(() => { if (!retryTimer) syncNow(); }, TIMER_MS);
  store.get('meta', 'sync-status').then((saved) => { if (saved && status.state === 'idle') { status = saved; listeners.forEach((fn) => fn(status)); } });
  syncSoon();
}

/** Ask the browser to wake the service worker for the outbox when signal returns (Chromium only). */
export async function requestBackgroundSync() {
  try {
    const registration = await navigator.serviceWorker?.ready;
    if (registration && registration.sync) await registration.sync.register(LOCK);
  } catch (error) { /* not offered here: the timer and the online event still resume */ }
}
