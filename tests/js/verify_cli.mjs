// Runs static/js/verifier.js under node for tests/test_verifier_js.py.
// Usage: node tests/js/verify_cli.mjs cases.json  -> prints a JSON report on stdout.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  parseVerifyUrl, statusAt, verifyStatusList, verifyToken,
} from '../../static/js/verifier.js';
import { assess, parseInput, verdictView } from '../../static/js/verdicts.js';

const cases = JSON.parse(await readFile(process.argv[2], 'utf8'));
const report = { tokens: [], status_lists: [], urls: [], qr: null, verdicts: [] };

for (const token of cases.tokens || []) {
  report.tokens.push(await verifyToken(token, cases.jwks));
}

for (const jws of cases.status_lists || []) {
  try {
    const list = await verifyStatusList(jws, cases.jwks);
    const statuses = [];
    for (let i = 0; i < list.statuses.length * 4; i++) statuses.push(statusAt(list, i));
    let outOfRange = false;
    try { statusAt(list, statuses.length); } catch (err) { outOfRange = err instanceof RangeError; }
    report.status_lists.push({
      ok: true, iss: list.iss, kid: list.kid, iat: list.iat, exp: list.exp, ttl: list.ttl,
      statuses, out_of_range_throws: outOfRange,
    });
  } catch (err) {
    report.status_lists.push({ ok: false, reason: err.reason || 'exception', message: String(err.message) });
  }
}

for (const text of cases.urls || []) report.urls.push(parseVerifyUrl(text));

// What /verificar shows offline for a scanned link, from the lists it stored ({keys, status}): the verdict and its word.
for (const text of (cases.offline && cases.offline.links) || []) {
  const { lists, today, now } = cases.offline;
  const parsed = parseInput(text);
  if (!parsed) { report.verdicts.push(null); continue; }
  const found = await assess(parsed.token, lists, { today, now, lang: 'es' });
  report.verdicts.push({ verdict: found.verdict, word: verdictView(found).word });
}

if (cases.qr) {
  // The vendored fallback decoder, loaded as the UMD bundle browsers get.
  const require = createRequire(import.meta.url);
  const jsQR = require('../../static/vendor/jsQR.js');
  const rgba = new Uint8ClampedArray(Buffer.from(cases.qr.rgba_b64, 'base64'));
  const found = jsQR(rgba, cases.qr.width, cases.qr.height);
  report.qr = found ? found.data : null;
}

process.stdout.write(JSON.stringify(report));
