// The server's answers sorted by what the outbox should do about them (ApiError kinds); pure: node tests it.
import { gettext } from '../i18n.js';
import { retryAfterMs } from './backoff.js';

/**
 * Why a request failed. `kind`:
 *   network  no answer (offline, timeout, connection cut): retry later
 *   retry    the server is busy or failing (5xx, 429, 408): retry later; `retryAfter` is the
 *            wait the server asked for (its Retry-After, in ms) or null
 *   auth     the device token is missing, expired or revoked: wait for a new sign-in
 *   refused  the server refused this entry (4xx): show `message` and what to do; never dropped
 */
export class ApiError extends Error {
  constructor(kind, message, status = 0, problem = null, retryAfter = null) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** The problem's words for a person: its detail, then its field errors. */
export function problemText(problem, fallback) {
  if (!problem) return fallback;
  const parts = [];
  if (problem.detail) parts.push(problem.detail);
  const walk = (errors, prefix) => {
    if (Array.isArray(errors)) errors.forEach((e) => (typeof e === 'string' ? parts.push(e) : walk(e, prefix)));
    else if (errors && typeof errors === 'object') Object.values(errors).forEach((v) => walk(v, prefix));
    else if (typeof errors === 'string') parts.push(errors);
  };
  walk(problem.errors);
  return parts.length ? parts.join(' ') : (problem.title || fallback);
}

/**
 * The ApiError for a non-2xx answer: its status, its JSON body (or null), its Retry-After header
 * (or null) and the moment it arrived (ms), for a Retry-After given as an HTTP-date.
 */
export function answerError(status, body, retryAfter, now) {
  if (status === 401) return new ApiError('auth', problemText(body, gettext('Inicie sesión de nuevo para enviar.')), status, body);
  if (status === 429 || status >= 500 || status === 408) {
    return new ApiError('retry', problemText(body, gettext('El servidor no pudo atender; se reintentará.')), status, body,
                        retryAfterMs(retryAfter, now));
  }
  return new ApiError('refused', problemText(body, gettext('El servidor rechazó este envío.')), status, body);
}

/** No answer at all: offline, a timeout, the connection cut. */
export function networkError() {
  return new ApiError('network', gettext('Sin conexión con el servidor.'));
}
