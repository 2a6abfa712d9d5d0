// Node tests of the photo's position on the device (static/js/tablet/position.js, issue 24) against a fake
// geolocation: asked once, a fresh fix reused, a refusal remembered (never a prompt loop), plain words without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FRESH_MS, fields, positionForPhoto, positionNote } from '../../static/js/tablet/position.js';

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
});
