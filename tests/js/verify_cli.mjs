// Runs static/js/verifier.js under node for tests/test_verifier_js.py.
// Usage: node tests/js/verify_cli.mjs cases.json  -> prints a JSON report on stdout.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  parseVerifyUrl, statusAt, verifyStatusList, verifyToken,
} from '../../static/js/verifier.js';

const cases = JSON.parse(await readFile(process.argv[2], 'utf8'));
const report = { tokens: [], status_lists: [], urls: [], qr: null };

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

if (cases.qr) {
  // The vendored fallback decoder, loaded as the UMD bundle browsers get.
  const require = createRequire(import.meta.url);
  const jsQR = require('../../static/vendor/jsQR.js');
  const rgba = new Uint8ClampedArray(Buffer.from(cases.qr.rgba_b64, 'base64'));
  const found = jsQR(rgba, cases.qr.width, cases.qr.height);
  report.qr = found ? found.data : null;
}

process.stdout.write(JSON.stringify(report));
