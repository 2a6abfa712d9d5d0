// How long the outbox waits after the n-th failure in a row. Pure: node tests it.

export const BACKOFF_BASE_MS = 2000;
export const BACKOFF_MAX_MS = 5 * 60 * 1000;

/**
 * Doubling from 2 s up to 5 min, with "equal jitter" (half fixed, half random) so that tablets
 * coming back into signal together do not all knock at the same moment, and none waits near zero.
 */
export function backoffDelay(n, random = Math.random) {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
