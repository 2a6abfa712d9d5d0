// One photo to the server, resumable from the last byte the server holds.
//
// Protocol (inspection/tablet/uploads.py on the server; a patrol check's photos go the same way under
// /api/v1/patrol-checks/{id}/uploads):
//   POST  /api/v1/inspections/{id}/uploads              {client_id, item_id, sha256, size, mime, taken_at,
//                                                        latitude, longitude, accuracy_m, position_source}
//         → {offset, size, photo}; `photo` at once when the server already has these bytes for the item
//   PATCH /api/v1/inspections/{id}/uploads/{client_id}  Upload-Offset: n, the bytes from n
//         → {offset, size, photo}; the server keeps what arrived even when the link drops mid-request
//   GET   the same URL → {offset, size, photo}: where to resume after a failure
// A retry therefore never sends again what the server has; a 4 MB photo on a weak link advances by
// what each attempt got through. Each PATCH carries at most the server's `upload_chunk_bytes`.
import { ApiError, api, deviceToken, readResponse } from './net.js';
import { fields } from './position.js';
import { asBlob } from './store.js';
import { gettext } from '../i18n.js';

const DEFAULT_CHUNK = 1024 * 1024;

/** Send `photo` (a photos-store record) to `base` (its record's uploads: an inspection's unless a patrol check's
 * is given); resolves with the server's photo record. */
export async function uploadPhoto(userId, photo, saveOffset, onProgress,
                                  { base = `/api/v1/inspections/${photo.inspection_id}/uploads`, chunkBytes = DEFAULT_CHUNK } = {}) {
  const created = await api(userId, 'POST', base, {
    client_id: photo.client_id, item_id: photo.item_id, sha256: photo.sha256, size: photo.size,
    mime: photo.mime, taken_at: photo.taken_at, ...fields(photo),  // the device's or the camera's position, if any
  });
  let state = created;
  const blob = asBlob(photo.bytes);
  const url = `${base}/${photo.client_id}`;
  while (!state.photo) {
    await saveOffset(state.offset);
    onProgress(0);
    const end = Math.min(photo.size, state.offset + (chunkBytes || DEFAULT_CHUNK));
    try {
      state = await patch(userId, url, state.offset, blob.slice(state.offset, end), (sent) => onProgress(state.offset - (photo.offset || 0) + sent));
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'refused' && error.status === 409 && error.problem
          && Number.isInteger(error.problem.offset)) {
        state = { offset: error.problem.offset, photo: null };  // the server holds more (or less) than we thought
        continue;
      }
      throw error;
    }
  }
  return state.photo;
}

/** One PATCH with upload progress (XMLHttpRequest in pages; fetch in the service worker). */
async function patch(userId, url, offset, chunk, onProgress) {
  const token = await deviceToken(userId);
  if (!token) throw new ApiError('auth', gettext('Inicie sesión de nuevo para enviar.'), 401);
  const headers = { Authorization: `Bearer ${token}`, 'Upload-Offset': String(offset),
                    'Content-Type': 'application/offset+octet-stream' };
  const timeout = 30000 + Math.round(chunk.size / 10);  // at least 10 kB/s before it counts as cut
  if (typeof XMLHttpRequest === 'undefined') {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    let response;
    try {
      response = await fetch(url, { method: 'PATCH', headers, body: chunk, signal: controller.signal, credentials: 'omit' });
    } catch (error) {
      throw new ApiError('network', gettext('Sin conexión con el servidor.'));
    } finally { clearTimeout(timer); }
    return readResponse(response);
  }
  const response = await new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PATCH', url);
    Object.entries(headers).forEach(([k, v]) => xhr.setRequestHeader(k, v));
    xhr.timeout = timeout;
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => resolve(new Response(xhr.status === 204 ? null : xhr.responseText, {
      status: xhr.status, headers: { 'Content-Type': xhr.getResponseHeader('Content-Type') || '',
                                     'Retry-After': xhr.getResponseHeader('Retry-After') || '' } }));
    const cut = () => reject(new ApiError('network', gettext('Sin conexión con el servidor.')));
    xhr.onerror = cut; xhr.ontimeout = cut; xhr.onabort = cut;
    xhr.send(chunk);
  });
  return readResponse(response);
}
