// Node tests of the photo's position on the device (static/js/tablet/position.js, issue 24) against a fake
// geolocation: asked once, a fresh fix reused, a refusal remembered (never a prompt loop), plain words without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FRESH_MS, fields, placeOfPhoto, positionForPhoto, positionNote } from '../../static/js/tablet/position.js';

function fakeGeo(answer) {
  const calls = { current: 0, watch: 0 };
  return {
    calls,
    getCurrentPosition(ok, fail) { calls.current += 1; answer(ok, fail); },
    watchPosition() { calls.watch += 1; return 7; },
    clearWatch() {},
  };
}

const FIX = { coords: { latitude: -25.2807, longitude: -57.6349, accuracy: 9.04 } };

test('a photo takes the device fix, which is reused while fresh, and asks for permission once', async () => {
  assert.equal(await positionForPhoto(null), null);  // no geolocation at all: no position, no error
  const geo = fakeGeo((ok) => ok(FIX));
  assert.deepEqual(await positionForPhoto(geo), { latitude: -25.2807, longitude: -57.6349, accuracy_m: 9 });
  assert.deepEqual(await positionForPhoto(geo, Date.now() + 1000), { latitude: -25.2807, longitude: -57.6349, accuracy_m: 9 });
  assert.deepEqual(geo.calls, { current: 1, watch: 1 });  // the second photo did not wait for the device
});

test('a refused permission is remembered: later photos go without a position and never ask again', async () => {
  const geo = fakeGeo((ok, fail) => fail({ code: 1 }));
  const stale = Date.now() + FRESH_MS + 1000;  // the earlier fix is too old to reuse
  assert.equal(await positionForPhoto(geo, stale), null);
  assert.equal(await positionForPhoto(geo, stale), null);
  assert.equal(geo.calls.current, 1);
});

test('the fields sent with a photo, and the words when it has none', () => {
  assert.deepEqual(fields(null), {});
  assert.equal(positionNote({ latitude: -25.28 }), '');
  assert.match(positionNote({}), /^Sin posición del dispositivo/);
  assert.equal(positionNote({ remote: true, position_source: 'none' }), 'Sin posición');
  assert.equal(positionNote({ remote: true, position_source: 'exif' }), '');
  assert.equal(positionNote({ latitude: null, position_source: 'none' }), 'Sin posición: ni el dispositivo ni la foto la registraron');
  assert.match(positionNote({ latitude: -25.28, position_source: 'exif' }), /EXIF/);
  assert.equal(positionNote({ latitude: -25.28, position_source: 'device' }), '');
});

/** A camera file in miniature: SOI, an APP1 Exif (big-endian TIFF) whose GPS IFD says 25°16'50.52"S 57°38'5.64"W. */
function cameraFile() {
  const tiff = new DataView(new ArrayBuffer(128));
  const ascii = (at, letter) => tiff.setUint8(at, letter.charCodeAt(0));
  tiff.setUint16(0, 0x4d4d); tiff.setUint16(2, 42); tiff.setUint32(4, 8);
  tiff.setUint16(8, 1); tiff.setUint16(10, 0x8825); tiff.setUint16(12, 4); tiff.setUint32(14, 1); tiff.setUint32(18, 26);
  tiff.setUint16(26, 4);
  const entry = (n, tag, type, count) => { const at = 28 + n * 12; tiff.setUint16(at, tag); tiff.setUint16(at + 2, type); tiff.setUint32(at + 4, count); return at + 8; };
  ascii(entry(0, 1, 2, 2), 'S'); tiff.setUint32(entry(1, 2, 5, 3), 80); ascii(entry(2, 3, 2, 2), 'W'); tiff.setUint32(entry(3, 4, 5, 3), 104);
  [[25, 1], [16, 1], [5052, 100], [57, 1], [38, 1], [564, 100]].forEach(([num, den], i) => {
    tiff.setUint32(80 + i * 8, num); tiff.setUint32(84 + i * 8, den);
  });
  const head = new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0, 2 + 6 + 128, ...'Exif\0\0'.split('').map((c) => c.charCodeAt(0))]);
  return new Blob([head, tiff.buffer, new Uint8Array([0xff, 0xd9])]);
}

test("a photo keeps the device fix, else the camera file's EXIF position, else says it has none", async () => {
  const stale = Date.now() + 10 * FRESH_MS;  // no fix kept from the tests above is fresh by then
  const refusing = fakeGeo((ok, fail) => fail({ code: 1 }));
  const camera = await placeOfPhoto(cameraFile(), refusing, stale);
  assert.deepEqual(camera, { latitude: -25.2807, longitude: -57.6349, accuracy_m: null, position_source: 'exif' });
  assert.deepEqual(fields(camera), { latitude: -25.2807, longitude: -57.6349, accuracy_m: null, position_source: 'exif' });
  const none = await placeOfPhoto(new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])]), refusing, stale);
  assert.deepEqual(none, { latitude: null, longitude: null, accuracy_m: null, position_source: 'none' });
  assert.deepEqual(fields(none), {});  // the server concludes "none" itself
  assert.deepEqual(fields({ latitude: 1, longitude: 2, accuracy_m: 3 }), { latitude: 1, longitude: 2, accuracy_m: 3 });
});
