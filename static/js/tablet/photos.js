// A photo as the tablet sends it: upright, no larger than the server publishes, hashed.
//
// The camera's file is decoded with its EXIF orientation applied, scaled so its long side is at
// most the server's `upload_px` and its pixels within `max_pixels`, and encoded as JPEG at the
// server's `upload_quality` (labels stay legible; the server keeps these bytes as the display copy),
// lowering the quality until it fits `max_bytes`. LONG_SIDE and QUALITY serve when the limits say nothing.
// The SHA-256 (WebCrypto) is of exactly the bytes that will be sent: the tablet declares it with
// the answer, and the server checks it on arrival.

export const LONG_SIDE = 2560;
export const QUALITY = 0.85;
const THUMB_SIDE = 320;

function canvas(width, height) {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(width, height);
  const c = document.createElement('canvas');
  c.width = width; c.height = height;
  return c;
}

function encode(surface, quality) {
  if (surface.convertToBlob) return surface.convertToBlob({ type: 'image/jpeg', quality });
  return new Promise((resolve) => surface.toBlob(resolve, 'image/jpeg', quality));
}

/** The long side and JPEG quality (0-1) the server's limits ask for, else the fallbacks. */
export function sendSettings(limits) {
  const px = limits && limits.upload_px;
  const quality = limits && limits.upload_quality;
  return { longSide: px > 0 ? px : LONG_SIDE, quality: quality > 0 && quality <= 100 ? quality / 100 : QUALITY };
}

/** Width and height that fit the long side and the pixel budget, keeping the aspect ratio. */
export function fitted(width, height, limits, longSide = sendSettings(limits).longSide) {
  let scale = Math.min(1, longSide / Math.max(width, height));
  if (limits && limits.max_pixels) scale = Math.min(scale, Math.sqrt(limits.max_pixels / (width * height)));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

function draw(bitmap, size) {
  const surface = canvas(size.width, size.height);
  const context = surface.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, size.width, size.height);
  return surface;
}

/** Hex SHA-256 of a Blob's bytes. */
export async function sha256Hex(blob) {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The photo to send and its thumbnail: {blob, thumb, sha256, width, height, size, mime}. */
export async function preparePhoto(file, limits) {
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  try {
    let size = fitted(bitmap.width, bitmap.height, limits);
    let blob = null;
    for (let { quality } = sendSettings(limits), round = 0; round < 8; round += 1) {
      blob = await encode(draw(bitmap, size), quality);
      if (!limits || !limits.max_bytes || blob.size <= limits.max_bytes) break;
      if (quality > 0.55) quality -= 0.1;
      else size = { width: Math.round(size.width * 0.8), height: Math.round(size.height * 0.8) };
    }
    const thumb = await encode(draw(bitmap, fitted(bitmap.width, bitmap.height, null, THUMB_SIDE)), 0.7);
    return { blob, thumb, sha256: await sha256Hex(blob), width: size.width, height: size.height,
             size: blob.size, mime: 'image/jpeg' };
  } finally {
    if (bitmap.close) bitmap.close();
  }
}
