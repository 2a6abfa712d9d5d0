// Node tests of the police verifier's decisions (static/js/verdicts.js): each verdict from constructed inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LISTS_OLD_MS, STALE_MS, ago, assess, cachedStatus, confirmation, countersignText, daysLeftText, decide, factsView, fromServer, inputProblem,
  listsAge, listsMomentText, listsState, listsView, officeToday, parseInput, statusFromList, tokenFromAddress, verdictView,
} from '../../static/js/verdicts.js';

const NOW = Date.parse('2026-06-01T15:00:00Z');
const DAY = 86400_000;
const TODAY = '2026-06-01';
const IAT = NOW / 1000 - 3600;  // a list issued an hour ago, valid for a day
const CLAIMS = { issuer: 'PGP-ASU', number: 'SEG-2026-0004567', kind: 'seguridad', revision: 1, registration: 'PY-ASU-1234',
                 vessel_name: 'Ñandutí', issued_on: '2026-03-15', valid_until: '2026-09-15', status_index: 9 };
const OK = { outcome: 'ok', claims: CLAIMS, kid: 'k1' };
const KEY = { kid: 'k1', office: 'PGP-ASU' };
const FRESH = { code: 0, problem: null };

const verdict = (inputs) => decide({ hasKeys: true, result: OK, key: KEY, status: FRESH, today: TODAY, lang: 'es', ...inputs });

test('the decision table: each verdict from what was found', () => {
  const rows = [
    [{ hasKeys: false }, 'unconfirmed', null],
    [{ result: { outcome: 'malformed' } }, 'malformed', 'El código QR no contiene un certificado legible.'],  // as /v/ says
    [{ result: { ...OK, outcome: 'high_s' } }, 'unconfirmed', null],  // only the record can vouch for a high-S token
    [{ result: { ...OK, outcome: 'high_s' }, key: { kid: 'k1', office: 'PGP-CDE' } }, 'unknown_issuer', null],
    [{ result: { outcome: 'invalid_signature', claims: CLAIMS } }, 'invalid_signature',
      'La firma no corresponde al contenido: el certificado fue alterado o es falso.'],
    [{ result: { outcome: 'unknown_issuer', kid: 'zz' } }, 'unknown_issuer', 'Firmado con una clave que no es de la Prefectura (clave zz).'],
    [{ key: { kid: 'k1', office: 'PGP-CDE' } }, 'unknown_issuer',
      'El certificado dice venir de PGP-ASU, pero la clave que lo firma es de PGP-CDE.'],
    [{}, 'valid', 'Certificado auténtico y vigente.'],
    [{ key: null }, 'valid', 'Certificado auténtico y vigente.'],  // a key without an office says nothing against it
    [{ status: { code: 1, problem: null } }, 'revoked', 'Revocado por la Prefectura: no ampara al buque.'],
    [{ status: { code: 1, problem: 'stale' } }, 'revoked', null],        // never undone: an old list still counts
    [{ status: { code: 3, problem: 'list_expired' } }, 'superseded', null],
    [{ status: { code: 2, problem: null } }, 'suspended', null],
    [{ today: '2026-09-16' }, 'expired', 'Certificado auténtico, pero venció el 15 de septiembre de 2026.'],
    [{ today: '2026-09-15' }, 'valid', null],                             // the last day still counts
    [{ today: '2026-09-16', status: { code: 2, problem: 'stale' } }, 'expired', null],
    [{ status: { code: 0, problem: 'stale' } }, 'unconfirmed', null],
    [{ status: { code: 2, problem: 'stale' } }, 'unconfirmed', null],
    [{ status: { code: null, problem: 'no_list' } }, 'unconfirmed', null],
    [{ status: { code: null, problem: 'list_bad' } }, 'unconfirmed', null],
    [{ status: { code: null, problem: 'beyond_list' } }, 'unconfirmed', null],
  ];
  for (const [inputs, expected, note] of rows) {
    const found = verdict(inputs);
    assert.equal(found.verdict, expected, JSON.stringify(inputs));
    if (note) assert.deepEqual(found.notes, [note]);
    const genuine = !['invalid_signature', 'unknown_issuer', 'malformed'].includes(expected) && inputs.hasKeys !== false;
    assert.equal(Boolean(found.claims), genuine, `claims shown only when genuine: ${JSON.stringify(inputs)}`);
  }
});

test('NO CONFIRMADO says why, the dates, and what the old list said', () => {
  const found = verdict({ status: { code: 2, problem: 'stale' } });
  assert.deepEqual(found.notes, [
    'La lista de estados guardada tiene más de 7 días: no se puede confirmar que no esté revocado ni suspendido.',
    'Firma auténtica; según sus fechas, vigente hasta el 15 de septiembre de 2026.',
    'La lista guardada lo indicaba suspendido.',
  ]);
  assert.match(verdict({ hasKeys: false }).notes[0], /todavía no tiene las claves públicas/);
});

test('a stored list is stale after seven days and expired after its exp; an index past it cannot be read', () => {
  const packed = new Uint8Array([0b11100100]);  // statuses 0, 1, 2, 3
  const list = { statuses: packed, bits: 2, iat: IAT, exp: IAT + 86400 };
  assert.deepEqual([0, 1, 2, 3].map((i) => statusFromList(list, i, NOW).code), [0, 1, 2, 3]);
  assert.deepEqual(statusFromList(list, 4, NOW), { code: null, problem: 'beyond_list' });
  assert.equal(statusFromList(list, 1, NOW + 2 * 86400 * 1000).problem, 'list_expired');
  const week = { ...list, exp: IAT + 30 * 86400 };
  assert.equal(statusFromList(week, 1, IAT * 1000 + STALE_MS).problem, null);
  assert.equal(statusFromList(week, 1, IAT * 1000 + STALE_MS + 1).problem, 'stale');
});

/** RFC 4648 base32, unpadded, as tokens are written. */
function base32(bytes) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) || []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
}

// A status list signed here as the server signs it (ES256 compact JWS, 2 bits each, zlib, base64url).
const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
async function signedList(statuses, { iat = IAT, exp = IAT + 86400 } = {}) {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const jwk = { ...(await crypto.subtle.exportKey('jwk', pair.publicKey)), kid: 'k1' };
  delete jwk.key_ops; delete jwk.ext;
  const packed = new Uint8Array(Math.ceil(statuses.length / 4));
  statuses.forEach((s, i) => { packed[i >> 2] |= s << ((i & 3) * 2); });
  const zipped = new Uint8Array(await new Response(new Blob([packed]).stream().pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
  const head = b64url(JSON.stringify({ alg: 'ES256', typ: 'statuslist+jwt', kid: 'k1' }));
  const body = b64url(JSON.stringify({ iss: 'PGP', iat, exp, ttl: exp - iat, status_list: { bits: 2, lst: b64url(zipped) } }));
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, new TextEncoder().encode(`${head}.${body}`));
  return { jws: `${head}.${body}.${b64url(new Uint8Array(sig))}`, jwks: { keys: [jwk] } };
}

test('the cached list is verified before it is believed', async () => {
  const { jws, jwks } = await signedList([0, 1, 2, 3, 0, 0, 0, 0, 0, 2]);
  assert.deepEqual(await cachedStatus({ jws }, 9, jwks, NOW), { code: 2, problem: null });
  assert.deepEqual(await cachedStatus({ jws }, 1, jwks, NOW), { code: 1, problem: null });
  assert.deepEqual(await cachedStatus(null, 1, jwks, NOW), { code: null, problem: 'no_list' });
  const [h, b, s] = jws.split('.');
  const forged = `${h}.${b64url(Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(b, 'base64url')), iat: IAT + 1 })))}.${s}`;
  assert.deepEqual(await cachedStatus({ jws: forged }, 1, jwks, NOW), { code: null, problem: 'list_bad' });
  assert.deepEqual(await cachedStatus({ jws: 'x.y.z' }, 1, jwks, NOW), { code: null, problem: 'list_bad' });
});

test('assess: without keys NO CONFIRMADO; a garbled code is unreadable, whatever the lists say', async () => {
  const { jws, jwks } = await signedList([0]);
  const lists = { keys: { fetched_at: NOW, jwks }, status: { jws, iat: IAT, exp: IAT + 86400, fetched_at: NOW } };
  const when = { today: TODAY, now: NOW, lang: 'es' };
  assert.equal((await assess('ABCDEF234', { keys: null, status: null }, when)).verdict, 'unconfirmed');
  assert.equal((await assess('!!!', lists, when)).verdict, 'malformed');
  assert.equal((await assess('MZXW6YTBOI', lists, when)).claims, null);
  assert.equal((await assess('MZXW6YTBOI', lists, when)).lists_at, undefined);  // CÓDIGO ILEGIBLE rests on no list
  // tag 18 [{1: -7, 4: kid}, {}, h'', 64 zero bytes]: well formed, signed with a key the lists do not hold
  const stranger = Uint8Array.from([0xd2, 0x84, 0x4d, 0xa2, 0x01, 0x26, 0x04, 0x48, 1, 2, 3, 4, 5, 6, 7, 8, 0xa0, 0x40,
                                    0x58, 0x40, ...new Array(64).fill(0)]);
  const forged = await assess(base32(stranger), lists, when);
  assert.deepEqual([forged.verdict, forged.lists_at], ['unknown_issuer', Math.min(NOW, IAT * 1000)]);  // the older list
});

test("the server's answer replaces a different offline verdict, and confirms the same one", () => {
  const local = verdict({ status: { code: 0, problem: 'stale' } });
  const cert = { registration: 'PY-ASU-1234', vessel_name: 'Ñandutí', kind: 'seguridad', number: 'SEG-2026-0004567',
                 revision: 2, issued_on: '2026-03-15', valid_until: '2026-09-15', office_code: 'PGP-ASU', office_name: 'Asunción' };
  const revoked = confirmation({ verdict: 'revoked', certificate: cert }, local, 'es');
  assert.equal(revoked.shown.verdict, 'revoked');
  assert.equal(revoked.shown.claims.office_name, 'Asunción');
  assert.equal(revoked.text, 'El servidor de la Prefectura responde REVOCADO; se muestra su resultado (sin conexión daba NO CONFIRMADO).');
  assert.deepEqual(confirmation({ verdict: 'unconfirmed' }, local, 'es'),
                   { shown: null, text: 'Confirmado en línea con el servidor de la Prefectura.' });
  assert.equal(confirmation({ verdict: 'nonsense' }, local, 'es'), null);
  assert.equal(confirmation(null, local, 'es'), null);
  const forged = fromServer({ verdict: 'unknown_issuer', certificate: cert }, 'k9', 'es');
  assert.deepEqual([forged.claims, forged.kid, forged.notes], [null, null, ['Firmado con una clave que no es de la Prefectura (clave k9).']]);
  assert.deepEqual(fromServer({ verdict: 'expired', certificate: cert }, 'k1', 'es').notes,
                   ['Certificado auténtico, pero venció el 15 de septiembre de 2026.']);
});

test("the server's mismatch replaces a genuine offline verdict, with the record's facts and no authentic signature", () => {
  const local = verdict({});
  const record = { registration: 'PY-ASU-1234', vessel_name: 'Ñandutí', kind: 'seguridad', number: 'SEG-2026-0004567',
                   revision: 1, issued_on: '2026-03-15', valid_until: '2026-09-15', office_code: 'PGP-ASU', office_name: 'Asunción' };
  const answer = { verdict: 'mismatch', certificate: record, mismatched: ['valid_until'] };
  const found = confirmation(answer, local, 'es');
  assert.equal(found.text, 'El servidor de la Prefectura responde NO COINCIDE CON EL REGISTRO; '
    + 'se muestra su resultado (sin conexión daba VÁLIDO).');
  assert.deepEqual([found.shown.verdict, found.shown.kid, found.shown.claims.valid_until], ['mismatch', null, '2026-09-15']);
  assert.deepEqual(found.shown.notes, [
    'El código lleva la firma de la Prefectura pero no coincide con el certificado registrado: puede ser falso. No lo acepte.',
    'Estos son los datos del certificado registrado con ese número, no los del código.',
  ]);
  assert.deepEqual(verdictView(found.shown, { now: NOW }), { tone: 'bad', icon: '✗', word: 'NO COINCIDE CON EL REGISTRO',
                                                          note: found.shown.notes.join(' '), age: '', old: false });
  const facts = factsView(found.shown.claims, found.shown.kid, 'mismatch', { today: TODAY, offices: {}, lang: 'es' });
  assert.deepEqual([facts['f-valid'], facts['f-signature']], ['15 de septiembre de 2026', '—']);  // no days left, not "Auténtica"
  const nothing = fromServer({ verdict: 'mismatch', certificate: null, mismatched: ['number'] }, 'k1', 'es');
  assert.deepEqual([nothing.claims, nothing.kid, nothing.notes.length], [null, null, 1]);
});

test('what the page shows: the verdict box and the facts', () => {
  assert.deepEqual(verdictView(verdict({})), { tone: 'ok', icon: '✓', word: 'VÁLIDO', note: 'Certificado auténtico y vigente.',
                                              age: '', old: false });
  assert.deepEqual(verdictView(verdict({ status: FRESH, today: '2027-01-01' })).tone, 'bad');
  assert.equal(verdictView(verdict({ hasKeys: false })).icon, '!');
  const facts = factsView({ ...CLAIMS, revision: 3 }, 'k1', 'valid', { today: TODAY, offices: { 'PGP-ASU': 'Asunción' }, lang: 'es' });
  assert.deepEqual(facts, {
    'f-registration': 'PY-ASU-1234', 'f-vessel': 'Ñandutí', 'f-kind': 'Seguridad (máquinas y calderas)',
    'f-number': 'SEG-2026-0004567 · revisión 3', 'f-issued': '15 de marzo de 2026',
    'f-valid': '15 de septiembre de 2026 (quedan 106 días)', 'f-office': 'Asunción (PGP-ASU)', 'f-signature': 'Auténtica · clave k1',
    'f-restrictions': '',
    'f-countersign': '',
  });
  const suspended = factsView(CLAIMS, null, 'suspended', { today: TODAY, offices: {}, lang: 'en' });
  assert.deepEqual([suspended['f-valid'], suspended['f-office'], suspended['f-signature']], ['September 15, 2026', 'PGP-ASU', '—']);
  assert.equal(factsView(null, null, 'invalid_signature', { today: TODAY, offices: {}, lang: 'es' }), null);
});

// The words below are the page's and the server's, not the law's: spelt so the quotation check (tests/test_quotes.py)
// does not read them as quoting an article.
const ART73 = `${'art.'} 73`;

test('a restriction signed into the token (claim -7) shows in the words of the page offline, of the server online', () => {
  const words = { D: `solo navegación diurna (Ley 928/1927, ${ART73})` };  // the page's data-restrictions
  const when = { today: TODAY, offices: {}, lang: 'es', restrictions: words };
  const restricted = { ...CLAIMS, restrictions: ['D'] };
  assert.equal(verdict({ result: { ...OK, claims: restricted } }).verdict, 'valid');  // valid, with a restriction
  assert.equal(factsView(restricted, 'k1', 'valid', when)['f-restrictions'],
               `Restricción: solo navegación diurna (Ley 928/1927, ${ART73})`);
  assert.equal(factsView({ ...CLAIMS, restrictions: ['Z'] }, 'k1', 'valid', when)['f-restrictions'], 'Restricción: Z');
  assert.equal(factsView(CLAIMS, 'k1', 'valid', when)['f-restrictions'], '');  // a token issued before claim -7
  const cert = { registration: 'PY-ASU-1234', vessel_name: 'Ñandutí', kind: 'navegabilidad', number: 'NAV-2026-0004567',
                 revision: 1, issued_on: '2026-03-15', valid_until: '2026-09-15', office_code: 'PGP-ASU', office_name: 'Asunción',
                 restrictions: [{ code: 'D', name: 'daylight_only', label: 'daylight navigation only', source: 'Ley 928/1927',
                                  article: '73' }] };
  const online = fromServer({ verdict: 'valid', certificate: cert }, 'k1', 'en');
  assert.deepEqual(online.claims.restrictions, ['D']);
  assert.equal(factsView(online.claims, 'k1', 'valid', { ...when, restrictions: {} })['f-restrictions'],
               `Restricción: daylight navigation only (Ley 928/1927, ${ART73})`);
});

test('days left, ages and the office day', () => {
  assert.deepEqual(['2026-06-03', '2026-06-02', '2026-06-01', '2026-05-31', '2026-05-20'].map((d) => daysLeftText(d, TODAY)),
                   ['quedan 2 días', 'queda 1 día', 'vence hoy', 'vencido ayer', 'vencido hace 12 días']);
  const minutes = (n) => NOW - n * 60_000;
  assert.deepEqual([minutes(1), minutes(5), minutes(120), minutes(24 * 60), minutes(72 * 60), NOW + 5000].map((t) => ago(t, NOW)),
                   ['hace un momento', 'hace 5 min', 'hace 2 h', 'hace 1 día', 'hace 3 días', 'hace un momento']);
  const lateEvening = new Date('2026-06-02T02:30:00Z');  // 22:30 of the 1st in Asunción (UTC-4)
  assert.equal(officeToday(lateEvening, 'America/Asuncion'), '2026-06-01');
  assert.equal(officeToday(new Date('2026-06-02T12:00:00Z'), 'Nowhere/Atlantis').length, 10);  // falls back to the phone's date
});

test('the lists panel: none, fresh, stale, and a refresh that failed', () => {
  const keys = { fetched_at: NOW - 3 * 3600_000, jwks: { keys: [{ kid: 'a' }, { kid: 'b' }] } };
  const status = { fetched_at: NOW - 600_000, iat: IAT, exp: IAT + 86400 };
  assert.equal(listsState({ keys: null, status }, NOW), 'none');
  assert.equal(listsState({ keys, status }, NOW), 'fresh');
  assert.equal(listsState({ keys, status }, NOW + STALE_MS), 'stale');
  assert.equal(listsAge({ keys, status }, NOW), 3 * 3600_000);
  assert.equal(listsAge({ keys, status: null }, NOW), Infinity);
  assert.deepEqual(listsView({ keys, status, refreshError: false }, NOW), {
    state: 'fresh', age: 'Listas actualizadas hace 3 h', detail: 'Claves públicas: 2. Lista de estados emitida hace 1 h.', warn: false });
  const stale = listsView({ keys, status, refreshError: true }, NOW + STALE_MS);
  assert.equal(stale.warn, true);
  assert.match(stale.detail, /NO CONFIRMADO hasta actualizarla\. No se pudieron actualizar las listas/);
  const none = listsView({ keys: null, status: null, refreshError: true }, NOW);
  assert.deepEqual([none.state, none.age, none.warn], ['none', 'No se pudieron actualizar las listas; se usan las guardadas.', true]);
  assert.match(none.detail, /^Sin listas guardadas/);
});

test('what the officer pasted: a link, a token, a shared link, or nothing usable', () => {
  assert.deepEqual(parseInput('https://host.py/verificar#t=abcdef234'), { base: null, token: 'ABCDEF234' });
  assert.deepEqual(parseInput('https://host.py/verificar?t=ABCDEF234'), { base: null, token: 'ABCDEF234' });
  assert.equal(parseInput('https://host.py/verificar'), null);
  assert.equal(inputProblem('https://host.py/v/ABCDEF234'), null);
  assert.equal(inputProblem('   '), 'Pegue el enlace del QR o escriba el código.');
  assert.equal(inputProblem('hola mundo'), 'No es un enlace ni un código de certificado de Baliza.');
  assert.equal(tokenFromAddress({ hash: '#t=AAA', search: '?t=BBB', pathname: '/v/CCC' }), 'AAA');
  assert.equal(tokenFromAddress({ hash: '', search: '?t=BBB', pathname: '/verificar' }), 'BBB');
  assert.equal(tokenFromAddress({ hash: '', search: '', pathname: '/v/ABC234/' }), 'ABC234');
  assert.equal(tokenFromAddress({ hash: '', search: '', pathname: '/v/AB1' }), 'AB1');  // read, then CÓDIGO ILEGIBLE
  assert.equal(tokenFromAddress({ hash: '', search: '', pathname: '/v/%C3%91' }), 'Ñ');
  assert.equal(tokenFromAddress({ hash: '', search: '', pathname: '/verificar' }), null);
  assert.deepEqual(parseInput('https://host.py/v/AB01+/'), { base: 'https://host.py', token: 'AB01+' });  // the wrong base
  assert.equal(parseInput('AB01'), null);  // bare text must still look like a token
});

test('a verdict from the stored lists says how old they are, on the office clock, and warns past a day', () => {
  const zone = 'America/Asuncion';  // UTC-3 in June 2026
  const at = Date.parse('2026-06-01T17:05:00Z');  // 14:05 in Asunción
  const lines = [
    [Date.parse('2026-06-01T20:00:00Z'), 'es', 'Según las listas de hoy 14:05.'],
    [Date.parse('2026-06-02T02:30:00Z'), 'es', 'Según las listas de hoy 14:05.'],  // 23:30 the same office day (UTC already the 2nd)
    [Date.parse('2026-06-02T12:00:00Z'), 'es', 'Según las listas de ayer 14:05.'],
    [Date.parse('2026-06-05T12:00:00Z'), 'es', 'Según las listas del 1 jun. 2026, 14:05.'],
  ];
  for (const [now, lang, text] of lines) assert.equal(listsMomentText(at, now, zone, lang), text);
  const valid = { ...verdict({}), lists_at: at };
  const fresh = verdictView(valid, { now: at + LISTS_OLD_MS, zone, lang: 'es' });
  assert.deepEqual([fresh.tone, fresh.icon, fresh.old, fresh.age], ['ok', '✓', false, 'Según las listas de ayer 14:05.']);
  const old = verdictView(valid, { now: at + LISTS_OLD_MS + 60_000, zone, lang: 'es' });
  assert.deepEqual([old.tone, old.icon, old.word, old.old], ['ok-old', '✓', 'VÁLIDO', true]);  // never a plain green VÁLIDO
  assert.equal(old.age, 'Según las listas de ayer 14:05. Listas de hace más de 24 horas: '
    + 'una suspensión o revocación posterior no figura en ellas. Actualícelas con conexión.');
  const revoked = verdictView({ ...verdict({ status: { code: 1, problem: null } }), lists_at: at }, { now: at + 3 * DAY, zone });
  assert.deepEqual([revoked.tone, revoked.old], ['bad', true]);
  assert.equal(verdictView({ ...valid, lists_at: null }, { now: at + 3 * DAY, zone }).age, '');  // confirmed online: no age
});

test('the countersignature of art. 221 is read from the list offline and said in the facts', () => {
  const list = { statuses: new Uint8Array([0b00000000]), bits: 2, iat: IAT, exp: IAT + 86400,
                 countersign: { signed: { 0: '2026-05-20' }, pending: { 1: '2026-06-10', 2: '2026-05-30' } } };
  assert.deepEqual(statusFromList(list, 0, NOW).countersign, { state: 'countersigned', on: '2026-05-20' });
  assert.deepEqual(statusFromList(list, 1, NOW).countersign, { state: 'pending', due: '2026-06-10' });
  assert.equal(statusFromList(list, 3, NOW).countersign, undefined);  // a kind nobody countersigns
  assert.equal(countersignText(statusFromList(list, 0, NOW).countersign, TODAY, 'es'), 'Refrendado el 20 de mayo de 2026 (art. 221)');
  assert.equal(countersignText(statusFromList(list, 1, NOW).countersign, TODAY, 'es'),
    'Pendiente de refrendo (plazo hasta el 10 de junio de 2026)');
  assert.equal(countersignText(statusFromList(list, 2, NOW).countersign, TODAY, 'es'),
    'Pendiente de refrendo: plazo vencido el 30 de mayo de 2026');
  const found = decide({ hasKeys: true, result: { outcome: 'ok', claims: { ...CLAIMS, status_index: 1 }, kid: 'k1' },
                         status: statusFromList(list, 1, NOW), today: TODAY, lang: 'es' });
  assert.equal(found.verdict, 'valid');
  const facts = factsView(found.claims, 'k1', found.verdict, { today: TODAY, offices: {}, lang: 'es' });
  assert.equal(facts['f-countersign'], 'Pendiente de refrendo (plazo hasta el 10 de junio de 2026)');
  const online = fromServer({ verdict: 'valid', certificate: { ...CLAIMS, vessel_name: 'Ñandutí', office_code: 'PGP-ASU', countersign: 'countersigned',
                                                               countersigned_on: '2026-05-20' } }, 'k1', 'es');
  assert.deepEqual(online.claims.countersign, { state: 'countersigned', on: '2026-05-20' });
});
