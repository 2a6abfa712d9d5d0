// Reading a certificate QR from a photo (the police page's "Leer el QR de una foto").
//
// A phone hands over whatever its camera or gallery holds: a 12-megapixel JPEG of the whole page
// on a table, a 150 dpi scan, a dim WebP forwarded through a messaging app. Shrinking every picture
// to one size first loses the QR's modules (a whole page at 4000 × 3000 shrunk to 960 px leaves
// ~1 px per module), so the photo is decoded at its own resolution first, then by a few scaled and
// differently binarised tries, stopping at the first that reads.
//
// The decoder is zxing-cpp compiled to WebAssembly (static/vendor/zxing-reader.js and
// zxing_reader.wasm, served from this origin and precached by the service worker, so it works
// offline). It reads all of the test set of photographed certificates; jsQR reads two in five at
// the old 960 px (tests/certificates/test_browser_qr_photos.py). Where WebAssembly cannot run (an
// old browser, or a policy without 'wasm-unsafe-eval'), jsQR, already used for the camera, is the
// fallback. Nothing here depends on the page: it takes a File or Blob and answers text or null.

const ZXING_TRIES = [
  // The photo as taken: zxing-cpp's own pyramid (tryDownscale) covers QRs too big for the frame.
  { scale: 1, options: {} },
  // Uneven light across a whole page: one global threshold instead of the local one.
  { scale: 1, options: { binarizer: 'GlobalHistogram' } },
  // Dim, grainy photos: zxing-cpp's denoising of the binarised image.
  { scale: 1, options: { tryDenoise: true } },
  // Scaled: halved (JPEG blocks and sensor noise averaged away), and doubled when it is small.
  { scale: 0.5, options: {} },
  { scale: 2, options: {}, maxSide: 2000 },
  { scale: 1, options: { binarizer: 'FixedThreshold' } },
];
const ZXING_OPTIONS = { formats: ['QRCode'], tryHarder: true, tryRotate: true, tryInvert: true, maxNumberOfSymbols: 1 };
const JSQR_SIDES = [Infinity, 1600, 960]; // px, longest side; jsQR has no pyramid of its own
const MAX_PIXELS = 16_777_216; // the largest canvas Safari on iOS draws (4096 × 4096)

let zxingLoading = null;

/** Load a classic script (a vendored UMD/IIFE bundle) once; resolves with the global it defines. */
function loadScript(src, global) {
  if (window[global]) return Promise.resolve(window[global]);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => (window[global] ? resolve(window[global]) : reject(new Error(`${global} missing`)));
    script.onerror = () => reject(new Error(`${src} did not load`));
    document.head.append(script);
  });
}

/** zxing-cpp's reader with its .wasm fetched from `wasmUrl` (our origin, never a CDN); rejects if it cannot run. */
function loadZxing(scriptUrl, wasmUrl) {
  if (!zxingLoading) {
    zxingLoading = (async () => {
      if (typeof WebAssembly !== 'object') throw new Error('no WebAssembly');
      const zxing = await loadScript(scriptUrl, 'ZXingWASM');
      await zxing.prepareZXingModule({
        overrides: { locateFile: (path, prefix) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) },
        fireImmediately: true,
      });
      return zxing;
    })();
    zxingLoading.catch(() => { zxingLoading = null; });
  }
  return zxingLoading;
}

/** The picture as a bitmap the canvas can draw, EXIF orientation applied; null when the browser cannot decode it. */
async function decodeImage(file) {
  try {
    return await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return null;
  }
}

/** The bitmap's pixels at `scale` (never past MAX_PIXELS or `maxSide`), as ImageData. */
function pixels(bitmap, scale, maxSide = Infinity) {
  const { width, height } = bitmap;
  const fit = Math.min(scale, maxSide / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  const w = Math.max(1, Math.round(width * fit));
  const h = Math.max(1, Math.round(height * fit));
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bitmap, 0, 0, w, h);
  return ctx.getImageData(0, 0, w, h);
}

async function readWithZxing(zxing, bitmap, file) {
  if (!bitmap) {
    // A type the browser will not draw: zxing-cpp decodes JPEG, PNG, BMP and GIF bytes itself.
    const found = await zxing.readBarcodes(file, ZXING_OPTIONS);
    return found.length ? found[0].text : null;
  }
  const seen = new Set();
  for (const { scale, options, maxSide } of ZXING_TRIES) {
    const image = pixels(bitmap, scale, maxSide);
    const key = `${image.width}x${JSON.stringify(options)}`;
    if (seen.has(key)) continue; // a small photo scaled "up to 2000 px" may be the same try again
    seen.add(key);
    const found = await zxing.readBarcodes(image, { ...ZXING_OPTIONS, ...options });
    if (found.length) return found[0].text;
  }
  return null;
}

async function readWithBarcodeDetector(bitmap) {
  if (!('BarcodeDetector' in window)) return null;
  try {
    if (!(await window.BarcodeDetector.getSupportedFormats()).includes('qr_code')) return null;
    const codes = await new window.BarcodeDetector({ formats: ['qr_code'] }).detect(bitmap);
    return codes.length ? codes[0].rawValue : null;
  } catch {
    return null;
  }
}

async function readWithJsQR(jsqrUrl, bitmap) {
  const jsQR = await loadScript(jsqrUrl, 'jsQR');
  for (const side of JSQR_SIDES) {
    const image = pixels(bitmap, 1, side);
    const found = jsQR(image.data, image.width, image.height, { inversionAttempts: 'attemptBoth' });
    if (found) return found.data;
  }
  return null;
}

/**
 * A reader of photos: file -> { text } when a QR was read, { text: null, unreadable } when not
 * (`unreadable` when the picture itself could not be decoded, so the page can say so).
 * `urls` are where the vendored decoders live: { zxingScript, zxingWasm, jsqrScript }.
 */
export function photoReader(urls) {
  return async (file) => {
    const bitmap = await decodeImage(file);
    try {
      let zxing = null;
      try {
        zxing = await loadZxing(urls.zxingScript, urls.zxingWasm);
      } catch { /* no WebAssembly here: jsQR below */ }
      let text = null;
      if (zxing) text = await readWithZxing(zxing, bitmap, file).catch(() => null);
      if (!text && bitmap) text = await readWithBarcodeDetector(bitmap);
      if (!text && bitmap && !zxing) text = await readWithJsQR(urls.jsqrScript, bitmap);
      return { text, unreadable: !text && !bitmap };
    } finally {
      if (bitmap) bitmap.close();
    }
  };
}
