// The camera's own position in a photo's EXIF (issue 24), read on the tablet before the photo is re-encoded.
//
// photos.js sends a fresh JPEG without the camera's metadata, so the server can no longer read the GPS of a photo
// chosen from the gallery or taken with geolocation refused: the tablet reads it here, from the first HEAD_BYTES of
// the file only (APP1 comes first and is at most 64 kB), and declares it with position_source 'exif'. The rules are
// the server's (inspection/media/photos.py parse_gps): a hemisphere letter for each coordinate, three rationals,
// within the globe, and 0/0 is no fix. GPSHPositioningError, when the camera wrote it, is the accuracy in metres.
// Anything malformed is simply no position: this module never throws.

export const HEAD_BYTES = 128 * 1024;
const GPS_IFD = 0x8825;
const LAT_REF = 1, LAT = 2, LON_REF = 3, LON = 4, H_ERROR = 0x1f;
const ASCII = 2, RATIONAL = 5, SRATIONAL = 10;
const MAX_ENTRIES = 512;
const MAX_ACCURACY_M = 1_000_000;  // as the server's accuracy_m range

/** The EXIF position of a camera file (a Blob), as {latitude, longitude, accuracy_m, position_source: 'exif'},
 * or null when it has none or cannot be read. */
export async function exifPosition(file) {
  try {
    return readExifPosition(await file.slice(0, HEAD_BYTES).arrayBuffer());
  } catch (error) {
    return null;
  }
}

/** The EXIF position in a JPEG's first bytes (an ArrayBuffer), or null. */
export function readExifPosition(buffer) {
  try {
    const tiff = exifSegment(new DataView(buffer));
    return tiff ? gpsPosition(tiff) : null;
  } catch (error) {  // a RangeError from a lying offset the checks missed: still no position
    return null;
  }
}

/** The TIFF block of the JPEG's APP1 Exif segment as {view, start, end}, or null. */
function exifSegment(view) {
  if (view.byteLength < 4 || view.getUint16(0) !== 0xffd8) return null;
  let pos = 2;
  while (pos + 4 <= view.byteLength) {
    if (view.getUint8(pos) !== 0xff) return null;
    const marker = view.getUint8(pos + 1);
    if (marker === 0xff) { pos += 1; continue; }  // fill byte
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) { pos += 2; continue; }  // no length
    if (marker === 0xda || marker === 0xd9) return null;  // the image data: no metadata after it
    const length = view.getUint16(pos + 2);
    if (length < 2) return null;
    const start = pos + 4;
    const end = Math.min(pos + 2 + length, view.byteLength);
    if (marker === 0xe1 && end - start > 14 && text(view, start, 6) === 'Exif\0\0') {
      return { view, start: start + 6, end };
    }
    pos += 2 + length;
  }
  return null;
}

function text(view, start, length) {
  let out = '';
  for (let i = 0; i < length; i += 1) out += String.fromCharCode(view.getUint8(start + i));
  return out;
}

/** The position in the TIFF block's GPS IFD, by the server's rules; null when absent or implausible. */
function gpsPosition(tiff) {
  const { view, start, end } = tiff;
  const order = text(view, start, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const little = order === 'II';
  const reader = {
    view, start, end, little,
    u16: (at) => view.getUint16(start + at, little),
    u32: (at) => view.getUint32(start + at, little),
    i32: (at) => view.getInt32(start + at, little),
    fits: (at, size) => at >= 0 && start + at + size <= end,
  };
  if (reader.u16(2) !== 42) return null;
  const ifd0 = entries(reader, reader.u32(4));
  const pointer = ifd0 && ifd0.get(GPS_IFD);
  if (!pointer || pointer.count !== 1) return null;
  const gps = entries(reader, pointer.at === null ? -1 : reader.u32(pointer.at));
  if (!gps) return null;
  const latitude = degrees(reader, gps.get(LAT), gps.get(LAT_REF), 'N', 'S', 90);
  const longitude = degrees(reader, gps.get(LON), gps.get(LON_REF), 'E', 'W', 180);
  if (latitude === null || longitude === null || (latitude === 0 && longitude === 0)) return null;
  const error = gps.get(H_ERROR) && gps.get(H_ERROR).count === 1 ? rationals(reader, gps.get(H_ERROR), 1) : null;
  const accuracy = error && error[0] >= 0 && error[0] <= MAX_ACCURACY_M ? Math.round(error[0] * 10) / 10 : null;
  return { latitude, longitude, accuracy_m: accuracy, position_source: 'exif' };
}

/** An IFD's entries, tag → {type, count, at (the value's offset in the TIFF block, null if out of bounds)}. */
function entries(reader, offset) {
  if (!reader.fits(offset, 2)) return null;
  const count = reader.u16(offset);
  if (count > MAX_ENTRIES || !reader.fits(offset + 2, count * 12)) return null;
  const found = new Map();
  for (let i = 0; i < count; i += 1) {
    const entry = offset + 2 + i * 12;
    const type = reader.u16(entry + 2);
    const n = reader.u32(entry + 4);
    const size = n * ({ [ASCII]: 1, [RATIONAL]: 8, [SRATIONAL]: 8 }[type] || 4);
    const at = size <= 4 ? entry + 8 : reader.u32(entry + 8);
    found.set(reader.u16(entry), { type, count: n, at: reader.fits(at, size) ? at : null });
  }
  return found;
}

/** `n` rationals (unsigned or signed) as numbers, or null when any is missing or divides by zero. */
function rationals(reader, entry, n) {
  if (!entry || entry.at === null || entry.count !== n || (entry.type !== RATIONAL && entry.type !== SRATIONAL)) return null;
  const values = [];
  for (let i = 0; i < n; i += 1) {
    const at = entry.at + i * 8;
    const [num, den] = entry.type === RATIONAL ? [reader.u32(at), reader.u32(at + 4)] : [reader.i32(at), reader.i32(at + 4)];
    if (den === 0) return null;
    values.push(num / den);
  }
  return values;
}

/** Decimal degrees from (deg, min, sec) and a hemisphere letter, rounded as the server does; null if implausible. */
function degrees(reader, entry, ref, positive, negative, limit) {
  if (!ref || ref.type !== ASCII || ref.at === null || ref.count < 1) return null;
  const letter = text(reader.view, reader.start + ref.at, Math.min(ref.count, 2)).replace(/[\0 ]+$/, '').toUpperCase();
  if (letter !== positive && letter !== negative) return null;
  const dms = rationals(reader, entry, 3);
  if (!dms) return null;
  const value = dms[0] + dms[1] / 60 + dms[2] / 3600;
  if (!Number.isFinite(value) || value < 0 || value > limit) return null;
  const rounded = Math.round(value * 1e7) / 1e7;
  return letter === negative ? -rounded : rounded;
}
