// Dates as people read them, in the page's language: the words Babel writes on the server
// (inspection/i18n/formats.py, the `day` filter), so a page online and the verifier offline agree.
// Both read the same CLDR date formats: `long` "1 de diciembre de 2026" / "December 1, 2026",
// `medium` "1 dic. 2026" / "Dec 1, 2026". Pure (no DOM): node runs it in tests.

const LOCALES = { es: 'es-PY', en: 'en' }; // as inspection/i18n.py LOCALES (es_PY, en)
const formatters = new Map();

/** The page's language, 'es' unless the page says English. */
export function pageLanguage(doc = globalThis.document) {
  return doc && doc.documentElement.lang === 'en' ? 'en' : 'es';
}

/** An ISO date ("2026-12-01") in words, as Babel's format_date(day, width, locale). */
export function formatDay(iso, lang = 'es', width = 'long') {
  if (!iso) return '';
  const [y, m, d] = String(iso).slice(0, 10).split('-').map(Number);
  const key = `${lang}/${width}`;
  if (!formatters.has(key)) {
    // UTC both ways: the calendar day never shifts with the phone's time zone.
    formatters.set(key, new Intl.DateTimeFormat(LOCALES[lang] || LOCALES.es, { dateStyle: width, timeZone: 'UTC' }));
  }
  return formatters.get(key).format(new Date(Date.UTC(y, m - 1, d)));
}

/** A UTC timestamp on a zone's wall clock, as Babel's format_moment: the medium day and 24 h time. */
export function formatMoment(iso, lang = 'es', zone = officeZone()) {
  if (!iso) return '';
  const moment = new Date(iso);
  const day = formatter(lang, zone, 'day', { dateStyle: 'medium' }).format(moment);
  return `${day}, ${formatTime(moment, lang, zone)}`;
}

/** The 24 h time ("14:05") of a moment (a Date or ms) on a zone's wall clock. */
export function formatTime(moment, lang = 'es', zone = officeZone()) {
  return formatter(lang, zone, 'time', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(moment));
}

/** One Intl.DateTimeFormat per language, zone and kind: making one costs far more than using it. */
function formatter(lang, zone, kind, options) {
  const key = `${lang}/${zone || ''}/${kind}`;
  if (!formatters.has(key)) {
    formatters.set(key, new Intl.DateTimeFormat(LOCALES[lang] || LOCALES.es, { ...options, timeZone: zone || undefined }));
  }
  return formatters.get(key);
}

/** The office's time zone, from the page (`<html data-office-tz>`), else the device's. */
export function officeZone(doc = globalThis.document) {
  return (doc && doc.documentElement.dataset.officeTz) || undefined;
}
