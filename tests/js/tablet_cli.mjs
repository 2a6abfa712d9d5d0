// Runs the tablet's pure modules under node for tests/test_tablet_js.py.
// Usage: node tests/js/tablet_cli.mjs cases.json
//   -> {answers, bounds, closing, summaries, backoff, retry_after, retry_delay, fitted, settings} as JSON on stdout.
import { readFile } from 'node:fs/promises';
import { answerProblems, closingProblems, closingSummary, itemBound } from '../../static/js/tablet/rules.js';
import { backoffDelay, retryAfterMs, retryDelay } from '../../static/js/tablet/backoff.js';
import { fitted, sendSettings } from '../../static/js/tablet/photos.js';

const cases = JSON.parse(await readFile(process.argv[2], 'utf8'));
const closing = cases.closing.map(({ items, answers, photos }) => {
  const found = closingProblems(items, new Map(Object.entries(answers)), new Map(Object.entries(photos)));
  return { unanswered: found.unanswered.map((i) => i.id), incomplete: found.incomplete.map((i) => i.id),
           photos: found.photos.map((i) => i.id), ok: found.ok };
});
process.stdout.write(JSON.stringify({
  answers: cases.answers.map(({ item, answer }) => answerProblems(item, answer)),
  bounds: cases.answers.map(({ item }) => {
    const bound = itemBound(item);
    return bound && { name: bound.name, label: bound.label, value: bound.value };
  }),
  closing,
  summaries: (cases.summaries || []).map(({ items, answers, photos }) => closingSummary(
    items, new Map(Object.entries(answers)), new Map(Object.entries(photos || {})))),
  backoff: cases.backoff.map(({ n, random }) => backoffDelay(n, () => random)),
  retry_after: (cases.retry_after || []).map(({ value, now }) => retryAfterMs(value, now)),
  retry_delay: (cases.retry_delay || []).map(({ n, server, random }) => retryDelay(n, server, () => random)),
  fitted: cases.fitted.map(({ width, height, limits, long }) => fitted(width, height, limits, long)),
  settings: (cases.settings || []).map((limits) => sendSettings(limits)),
}));
