// Talking to the server from the tablet: bearer device tokens, timeouts, and errors sorted by what
// the outbox should do about them (wait and retry, ask for a new sign-in, or show the refusal).
import { get, put, del } from './store.js';
import { gettext } from '../i18n.js';
import { ApiError, answerError, networkError, problemText } from './errors.js';

export { ApiError, problemText };

const JSON_TIMEOUT_MS = 30000;

/** The device token kept for `userId`, or null. */
export async function deviceToken(userId) {
  const record = await get('meta', `device:${userId}`);
  if (!record) return null;
  if (record.expires_at && Date.parse(record.expires_at) <= Date.now()) return null;
  return record.token;
}

/** Exchange this browser's page session for a long-lived device token (online, signed in). */
export async function enrollDevice(userId, csrfToken) {
  const response = await fetch('/api/v1/auth/device', {
    method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrfToken, 'Accept-Language': document.documentElement.lang },
    body: JSON.stringify({ name: deviceName() }),
  });
  if (!response.ok) throw new ApiError(response.status === 401 ? 'auth' : 'refused', gettext('No se pudo registrar la tableta.'), response.status);
  const body = await response.json();
  if (String(body.user_id) !== String(userId)) throw new ApiError('auth', gettext('La sesión cambió de usuario.'), 401);
  await put('meta', { token: body.token, expires_at: body.expires_at, user_id: body.user_id, device_id: body.device_id }, `device:${userId}`);
  return body.token;
}

/** Forget the device token (signed out, or the server refused it). */
export const forgetDevice = (userId) => del('meta', `device:${userId}`);

function deviceName() {
  const ua = navigator.userAgent;
  const model = /\(([^)]+)\)/.exec(ua);
  return (model ? model[1] : ua).slice(0, 100) || 'Tableta';
}

function language() {
  return (globalThis.document && document.documentElement.lang) || 'es';
}

/** Turn a response into its JSON body, or throw the ApiError that says what to do. */
export async function readResponse(response) {
  const type = response.headers.get('Content-Type') || '';
  const body = type.includes('json') ? await response.json().catch(() => null) : null;
  if (response.ok) return body;
  throw answerError(response.status, body, response.headers.get('Retry-After'), Date.now());
}

/** One JSON request with the user's device token; `ApiError` on any failure. */
export async function api(userId, method, path, json = undefined, { timeout = JSON_TIMEOUT_MS, headers = {}, body } = {}) {
  const token = await deviceToken(userId);
  if (!token) throw new ApiError('auth', gettext('Inicie sesión de nuevo para enviar.'), 401);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  let response;
  try {
    response = await fetch(path, {
      method, signal: controller.signal, credentials: 'omit', cache: 'no-store',
      headers: { Authorization: `Bearer ${token}`, 'Accept-Language': language(),
                 ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: json !== undefined ? JSON.stringify(json) : body,
    });
  } catch (error) {
    throw networkError();
  } finally {
    clearTimeout(timer);
  }
  if (response.status === 401) await forgetDevice(userId);
  return readResponse(response);
}
