// Where the device is when a photo is taken (issue 24): latitude, longitude and accuracy in metres, offline.
//
// Geolocation needs no network (the GPS answers aboard). Permission is asked once, at a natural moment (the
// inspection's "Comenzar", or the first photo), never in a loop: a refusal is remembered for the page and
// photos go without a position. The photo then takes the camera file's EXIF position if it has one (exif.js reads it
// on the device: the re-encoded JPEG sent no longer carries it), and the report says plainly when there is none. A fix is reused for FRESH_MS so taking a photo stays instant; a
// photo waits at most WAIT_MS for a first one.
import { exifPosition } from './exif.js';
import { gettext } from '../i18n.js';

export const FRESH_MS = 2 * 60 * 1000;
export const WAIT_MS = 3000;
const DENIED = 1;  // GeolocationPositionError.PERMISSION_DENIED

const state = { last: null, refused: false, watching: null, geo: null };

function keep(found, now) {
  state.last = { latitude: found.coords.latitude, longitude: found.coords.longitude,
                 accuracy_m: Number.isFinite(found.coords.accuracy) ? Math.round(found.coords.accuracy * 10) / 10 : null,
                 at: now };
  return state.last;
}

function failed(error) {
  if (error && error.code === DENIED) {
    state.refused = true;
    if (state.watching !== null) state.geo.clearWatch(state.watching);
  }
}

/** Ask for the position once (the browser's prompt, the first time) and follow it quietly while the page is open. */
export function followPosition(geo = globalThis.navigator && navigator.geolocation) {
  if (!geo || state.refused || state.watching !== null) return;
  state.geo = geo;
  state.watching = geo.watchPosition((found) => keep(found, Date.now()), failed,
                                     { enableHighAccuracy: true, maximumAge: FRESH_MS, timeout: 60000 });
}

/** The position a photo records now, as {latitude, longitude, accuracy_m}: a fresh fix at once, else a new fix
 * within WAIT_MS, else null (no device position: the server falls back to the photo's EXIF). */
export async function positionForPhoto(geo = globalThis.navigator && navigator.geolocation, now = Date.now()) {
  if (state.last && now - state.last.at <= FRESH_MS) return fields(state.last);
  if (!geo || state.refused) return null;
  followPosition(geo);
  const found = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), WAIT_MS);
    geo.getCurrentPosition((fix) => { clearTimeout(timer); resolve(keep(fix, Date.now())); },
                           (error) => { clearTimeout(timer); failed(error); resolve(null); },
                           { enableHighAccuracy: true, maximumAge: FRESH_MS, timeout: WAIT_MS });
  });
  return found ? fields(found) : null;
}

/** The position a photo keeps on the device, sought while it is prepared: the device's fix, else the camera file's
 * EXIF position, else none; each with its position_source ('device', 'exif', 'none'). */
export async function placeOfPhoto(file, geo = globalThis.navigator && navigator.geolocation, now = Date.now()) {
  const [device, camera] = await Promise.all([positionForPhoto(geo, now), exifPosition(file)]);
  if (device) return { ...device, position_source: 'device' };
  return camera || { latitude: null, longitude: null, accuracy_m: null, position_source: 'none' };
}

/** A position's fields as a photo carries them to the server (POST /uploads, POST /photos): none without a latitude;
 * the source only when it is one a client declares (a photo kept before sources were recorded: the device's). */
export function fields(fix) {
  if (!fix || fix.latitude === undefined || fix.latitude === null) return {};
  const sent = { latitude: fix.latitude, longitude: fix.longitude, accuracy_m: fix.accuracy_m };
  return fix.position_source === 'device' || fix.position_source === 'exif' ? { ...sent, position_source: fix.position_source } : sent;
}

/** What the tablet says under a photo without the device's position, or '' when it has it. */
export function positionNote(photo) {
  if (photo.remote) return photo.position_source === 'none' ? gettext('Sin posición') : '';
  if (photo.position_source === 'none') return gettext('Sin posición: ni el dispositivo ni la foto la registraron');
  if (photo.position_source === 'exif') return gettext('Posición tomada de la foto (EXIF): el dispositivo no dio la suya');
  return photo.latitude === undefined || photo.latitude === null
    ? gettext('Sin posición del dispositivo: se usará la de la foto si la tiene') : '';
}
