// The inspection screen's first read of the store, started by a module script of its own (async, in the page's head)
// as soon as the store's modules are in: the database opens and the inspection is read while the screen's other
// modules are still loading and running (issue 22). inspection.js imports the same module, so it reads once.
import { inspectionRecords } from './store.js';

/** The inspection of this address (/inspecciones/<id>). */
export const inspectionId = Number((/\/inspecciones\/(\d+)/.exec(location.pathname) || [])[1]);

/** Its package, work, answers and photos on this tablet (store.js inspectionRecords). */
export const records = inspectionRecords(inspectionId);
records.catch(() => {});  // the screen awaits it and says what failed; not an unhandled rejection meanwhile
