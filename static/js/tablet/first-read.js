// The inspection screen's first read of the store, started as soon as the store's module has run: inspection.js imports
// this module first, so the database opens and the inspection is read while the screen's other modules still run
// (issue 22), and the screen awaits the same read.
import { inspectionRecords } from './store.js';

/** The inspection of this address (/inspecciones/<id>). */
export const inspectionId = Number((/\/inspecciones\/(\d+)/.exec(location.pathname) || [])[1]);

/** Its package, work, answers and photos on this tablet (store.js inspectionRecords). */
export const records = inspectionRecords(inspectionId);
records.catch(() => {});  // the screen awaits it and says what failed; not an unhandled rejection meanwhile
