// Runs static/js/formats.js under node for tests/test_verifier_js.py.
// Usage: node tests/js/formats_cli.mjs cases.json  -> the formatted dates, as JSON, on stdout.
import { readFile } from 'node:fs/promises';
import { formatDay } from '../../static/js/formats.js';

const cases = JSON.parse(await readFile(process.argv[2], 'utf8'));
process.stdout.write(JSON.stringify(cases.map(({ iso, lang, width }) => formatDay(iso, lang, width))));
