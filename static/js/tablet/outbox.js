// What the tablet still owes the server, in the order the inspector did it: the outbox's rules
// (queue.js) bound to the device's IndexedDB store, and the listeners woken by a new entry.
import * as store from './store.js';
import { STATES, isHeld, outboxOn } from './queue.js';

export { STATES, isHeld };

// Listeners that want to know the outbox changed (the sync engine registers itself here).
const sleepers = new Set();
export function onQueued(fn) { sleepers.add(fn); }
async function wake() { sleepers.forEach((fn) => { try { fn(); } catch (e) { /* a listener's problem */ } }); }

const outbox = outboxOn(store, { now: () => Date.now(), wake });

export const { enqueue, keepAndQueue, keepAnswer, keepMarks, entries, pendingFor, markFailed, retry, remove, discardPhoto } = outbox;
