// How long the outbox waits after the n-th failure in a row, and after the server said how long
// (`Retry-After`). Pure: node tests it.

export const BACKOFF_BASE_MS = 2000;
export const BACKOFF_MAX_MS = 5 * 60 * 1000;
export const RETRY_AFTER_MAX_MS = 60 * 60 * 1000;  // a server asking for more than an hour is not believed

/**
 * Doubling from 2 s up to 5 min, with "equal jitter" (half fixed, half random) so that tablets
 * coming back into signal together do not all knock at the same moment, and none waits near zero.
 */
export function backoffDelay(n, random = Math.random) {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3: delta-seconds or an HTTP-date) as milliseconds from
 * `now`, capped at an hour; null when absent or unreadable, 0 for a date already past.
 */
export function retryAfterMs(value, now = Date.now()) {
  const text = String(value ?? '').trim();
  if (!text) return null;
  let ms;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else if (/[a-z]/i.test(text) && !Number.isNaN(Date.parse(text))) ms = Date.parse(text) - now;
  else return null;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms));
}

/** The wait after the n-th failure: the backoff, or longer when the server asked for longer. */
export function retryDelay(n, serverMs = null, random = Math.random) {
  return Math.max(backoffDelay(n, random), Math.min(RETRY_AFTER_MAX_MS, serverMs || 0));
}
