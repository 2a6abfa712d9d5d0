// /v/{token} opened with signal: refresh the lists the offline verifier keeps (lists.js), so what
// this page shows (say SUSPENDIDO) is also what /verificar says offline a minute later.
import { downloadLists, loadLists } from './lists.js';

downloadLists(loadLists()).catch(() => { /* no signal or a bad answer: the stored lists stay */ });
