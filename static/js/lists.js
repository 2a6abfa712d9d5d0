// The lists the offline verifier keeps: the Prefectura's public keys (/api/v1/keys) and the
// signed status list (/api/v1/status-list), in localStorage with the time they arrived (the
// service worker keeps a second copy). Shared by /verificar, which verifies with them, and by
// /v/{token}, which refreshes them whenever it is opened with signal, so a suspension the
// officer has just seen online is not read as VÁLIDO offline a minute later.
import { verifyStatusList } from './verifier.js';

const KEYS_URL = '/api/v1/keys';
const STATUS_URL = '/api/v1/status-list';
const STORE_KEYS = 'baliza.verificador.keys.v1';
const STORE_STATUS = 'baliza.verificador.status.v1';
const NET_TIMEOUT_MS = 5000;

function loadStored(name) {
  try {
    const value = JSON.parse(localStorage.getItem(name));
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

function saveStored(name, value) {
  try { localStorage.setItem(name, JSON.stringify(value)); } catch { /* memory copy still serves */ }
}

/** A JWK Set reduced to the usable EC P-256 keys; null when none is usable. */
function cleanJwks(data) {
  const keys = data && Array.isArray(data.keys) ? data.keys : [];
  const usable = keys.filter((k) => k && k.kty === 'EC' && k.crv === 'P-256'
    && typeof k.x === 'string' && typeof k.y === 'string' && typeof k.kid === 'string');
  return usable.length ? { keys: usable } : null;
}

/** The key `kid` of a cleaned key set, or null. */
export function findKey(jwks, kid) {
  return (jwks && jwks.keys.find((k) => k.kid === kid)) || null;
}

/** The server answered, but not with what we need: online all the same, unlike a network error. */
export class ServerAnswerError extends Error {}

/** GET JSON with a timeout; tells whether the service worker answered from its cache. */
export async function fetchJson(url) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), NET_TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      signal: controller.signal, cache: 'no-store', headers: { Accept: 'application/json' },
    });
    if (!response.ok) throw new ServerAnswerError(`HTTP ${response.status}`);
    const stamped = response.headers.get('X-Baliza-Fetched-At') || response.headers.get('Date') || '';
    return {
      data: await response.json(),
      fromCache: response.headers.get('X-Baliza-From-Cache') === '1',
      fetchedAt: Date.parse(stamped) || null,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fetch keys, then the status list (verified with those keys) into `state` ({keys, status}),
 * keeping whatever is newer and storing it; true when both came from the network.
 */
export async function downloadLists(state) {
  const keysAnswer = await fetchJson(KEYS_URL);
  const jwks = cleanJwks(keysAnswer.data);
  if (!jwks) throw new ServerAnswerError('the key set has no usable key');
  const keysAt = keysAnswer.fromCache ? (keysAnswer.fetchedAt || 0) : Date.now();
  if (!state.keys || keysAt > state.keys.fetched_at) {
    state.keys = { fetched_at: keysAt || Date.now(), jwks };
    saveStored(STORE_KEYS, state.keys);
  }
  const statusAnswer = await fetchJson(STATUS_URL);
  const jws = statusAnswer.data && statusAnswer.data.jws;
  let list;
  try {
    list = await verifyStatusList(jws, state.keys.jwks);
  } catch (err) {
    throw new ServerAnswerError(String(err.message || err)); // a bad or foreign list: keep ours
  }
  const listAt = statusAnswer.fromCache ? (statusAnswer.fetchedAt || 0) : Date.now();
  const kept = state.status;
  // Never step back to an older list (a replayed copy could hide a revocation).
  if (!kept || list.iat > kept.iat || (list.iat === kept.iat && listAt > kept.fetched_at)) {
    state.status = { fetched_at: listAt || Date.now(), jws, iat: list.iat, exp: list.exp };
    saveStored(STORE_STATUS, state.status);
  }
  return !keysAnswer.fromCache && !statusAnswer.fromCache;
}

/** The stored lists ({keys, status}), each null when absent or unusable. */
export function loadLists() {
  let keys = loadStored(STORE_KEYS);
  let status = loadStored(STORE_STATUS);
  if (keys && !cleanJwks(keys.jwks)) keys = null;
  if (status && typeof status.jws !== 'string') status = null;
  return { keys, status };
}
