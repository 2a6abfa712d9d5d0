// Baliza offline certificate verifier (ES module, no build step).
//
// Verifies the token inside a certificate QR ({public_url}/v/{token}) and the signed status
// list with public keys cached earlier from /api/v1/keys and /api/v1/status-list, so a river
// police officer can check a certificate where there is no signal. Mirrors
// inspection/certificates/signing.py and inspection/certificates/status_list.py:
//   token  = base32 (RFC 4648, uppercase, no padding) of COSE_Sign1 (tag 18), ES256, with
//            protected header {1: -7, 4: kid(8 bytes)} and CWT claims
//            {1 iss, 6 iat, 4 exp, -1 YEAR*1e6+SERIAL, -2 "N"/"S", -3 revision,
//             -4 registration, -5 vessel name, -6 status index, and -7 restriction codes when there are any}
//   status = compact JWS ES256 (typ statuslist+jwt), 2 bits per certificate, LSB first,
//            zlib + base64url; 0 valid, 1 revoked, 2 suspended, 3 superseded.
// It accepts exactly what the server accepts: the one encoding sign_certificate writes (tag 18, shortest
// lengths, empty unprotected header, the claims as to_cwt writes them) and a low-S signature, so a QR
// reads with the same verdict words offline as on /v/{token} (tests/certificates/test_verifier_js.py).
// Runs unchanged in browsers and node >= 20 (globalThis.crypto.subtle, DecompressionStream).

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MAX_TOKEN_CHARS = 2048;
const MAX_LIST_BYTES = 16 * 1024 * 1024;
const DAY = 86400;
const KIND_NAMES = { N: 'navegabilidad', S: 'seguridad' };
const KIND_PREFIXES = { navegabilidad: 'NAV', seguridad: 'SEG' };

export const STATUS = Object.freeze({ VALID: 0, REVOKED: 1, SUSPENDED: 2, SUPERSEDED: 3 });
export const STATUS_NAMES = Object.freeze(['valid', 'revoked', 'suspended', 'superseded']);

class Malformed extends Error {}

export class StatusListError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason; // 'malformed' | 'unknown_issuer' | 'invalid_signature'
  }
}

// --- encodings -------------------------------------------------------------------------------

/** Decode canonical unpadded base32 (case-insensitive); throws on anything else. */
export function base32Decode(text) {
  if (typeof text !== 'string' || text.length === 0) throw new Malformed('empty token');
  if (text.length > MAX_TOKEN_CHARS) throw new Malformed('token too long');
  const upper = text.toUpperCase();
  const out = new Uint8Array(Math.floor((upper.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (const ch of upper) {
    const v = B32.indexOf(ch);
    if (v < 0) throw new Malformed('token is not base32 (A-Z, 2-7)');
    buffer = ((buffer << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (buffer >> bits) & 0xff;
    }
  }
  // Canonical only: fewer than 5 leftover bits, all zero (what Python's encoder writes).
  if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) {
    throw new Malformed('token is not canonical base32');
  }
  return out;
}

/** Decode unpadded base64url strictly. */
export function b64urlDecode(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new Malformed('not base64url');
  }
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8enc = new TextEncoder();

// --- minimal CBOR (RFC 8949) -----------------------------------------------------------------

/** A CBOR simple value other than false/true/null/undefined. */
export class Simple {
  constructor(value) { this.value = value; }
}

/** A CBOR float, kept apart from integers so 7.0 never passes for the integer 7. */
export class CborFloat {
  constructor(value) { this.value = value; }
}

/** A CBOR tag that the decoder does not interpret. */
export class Tagged {
  constructor(tag, value) {
    this.tag = tag;
    this.value = value;
  }
}

/** Decode exactly one definite-length CBOR item; maps become Map, tags become Tagged. */
export function cborDecode(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n) => {
    if (n > bytes.length - pos) throw new Malformed('truncated CBOR');
  };
  const argument = (info) => {
    if (info < 24) return info;
    if (info === 24) { need(1); return view.getUint8(pos++); }
    if (info === 25) { need(2); const v = view.getUint16(pos); pos += 2; return v; }
    if (info === 26) { need(4); const v = view.getUint32(pos); pos += 4; return v; }
    if (info === 27) {
      need(8);
      const v = view.getBigUint64(pos);
      pos += 8;
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    throw new Malformed('indefinite or reserved CBOR length');
  };
  const length = (info) => {
    const n = argument(info);
    if (typeof n !== 'number' || n > bytes.length - pos) throw new Malformed('CBOR length too big');
    return n;
  };
  const item = (depth) => {
    if (depth > 8) throw new Malformed('CBOR nested too deep');
    need(1);
    const initial = view.getUint8(pos++);
    const major = initial >> 5;
    const info = initial & 31;
    switch (major) {
      case 0: return argument(info);
      case 1: {
        const n = argument(info);
        return typeof n === 'bigint' || n >= Number.MAX_SAFE_INTEGER ? -1n - BigInt(n) : -1 - n;
      }
      case 2: { const n = length(info); const v = bytes.slice(pos, pos + n); pos += n; return v; }
      case 3: {
        const n = length(info);
        let v;
        try { v = utf8.decode(bytes.subarray(pos, pos + n)); } catch { throw new Malformed('bad UTF-8'); }
        pos += n;
        return v;
      }
      case 4: {
        const n = length(info);
        const out = [];
        for (let i = 0; i < n; i++) out.push(item(depth + 1));
        return out;
      }
      case 5: {
        const n = length(info);
        const out = new Map();
        for (let i = 0; i < n; i++) {
          const k = item(depth + 1);
          if (out.has(k)) throw new Malformed('duplicate CBOR map key');
          out.set(k, item(depth + 1));
        }
        return out;
      }
      case 6: { const tag = argument(info); return new Tagged(tag, item(depth + 1)); }
      default: {
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        if (info === 23) return undefined;
        if (info < 24) return new Simple(info);
        if (info === 24) {
          need(1);
          const v = view.getUint8(pos++);
          if (v < 32) throw new Malformed('badly encoded CBOR simple value');
          return new Simple(v);
        }
        if (info === 25) { need(2); const v = float16(view.getUint16(pos)); pos += 2; return new CborFloat(v); }
        if (info === 26) { need(4); const v = view.getFloat32(pos); pos += 4; return new CborFloat(v); }
        if (info === 27) { need(8); const v = view.getFloat64(pos); pos += 8; return new CborFloat(v); }
        throw new Malformed('reserved CBOR simple value or stray break');
      }
    }
  };
  const value = item(0);
  if (pos !== bytes.length) throw new Malformed('trailing bytes after CBOR item');
  return value;
}

function float16(h) {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function cborHead(major, n) {
  if (typeof n === 'bigint' && n <= BigInt(Number.MAX_SAFE_INTEGER)) n = Number(n);
  if (typeof n === 'bigint' || n >= 2 ** 32) {
    const big = BigInt(n);
    const bytes = [(major << 5) | 27];
    for (let shift = 56n; shift >= 0n; shift -= 8n) bytes.push(Number((big >> shift) & 0xffn));
    return bytes;
  }
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/**
 * The CBOR that Python's cbor2.dumps writes for the items a token holds (integers, text, bytes, arrays, maps in
 * insertion order, tags): definite and shortest. A token is accepted only when its bytes are this re-encoding.
 */
export function cborEncode(value) {
  const parts = [];
  const put = (item) => {
    if (typeof item === 'number' || typeof item === 'bigint') {
      if (typeof item === 'number' && !Number.isSafeInteger(item)) throw new Malformed('not an integer');
      const negative = item < 0;
      parts.push(Uint8Array.from(cborHead(negative ? 1 : 0, negative ? -1n - BigInt(item) : item)));
    } else if (typeof item === 'string') {
      const text = utf8enc.encode(item);
      parts.push(Uint8Array.from(cborHead(3, text.length)), text);
    } else if (item instanceof Uint8Array) {
      parts.push(Uint8Array.from(cborHead(2, item.length)), item);
    } else if (Array.isArray(item)) {
      parts.push(Uint8Array.from(cborHead(4, item.length)));
      item.forEach(put);
    } else if (item instanceof Map) {
      parts.push(Uint8Array.from(cborHead(5, item.size)));
      item.forEach((v, k) => { put(k); put(v); });
    } else if (item instanceof Tagged) {
      parts.push(Uint8Array.from(cborHead(6, item.tag)));
      put(item.value);
    } else {
      throw new Malformed('not an item a token holds');
    }
  };
  put(value);
  return concat(parts);
}

const sameBytes = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);

function concat(parts) {
  const total = parts.reduce((sum, p) => sum + p.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) { out.set(p, offset); offset += p.length; }
  return out;
}

/** CBOR of the COSE Sig_structure ["Signature1", protected, h'', payload] (RFC 9052 §4.4). */
export function sigStructure(protectedBytes, payload) {
  const context = utf8enc.encode('Signature1');
  return concat([
    Uint8Array.of(0x84),
    Uint8Array.from(cborHead(3, context.length)), context,
    Uint8Array.from(cborHead(2, protectedBytes.length)), protectedBytes,
    Uint8Array.of(0x40),
    Uint8Array.from(cborHead(2, payload.length)), payload,
  ]);
}

// --- certificate numbers (Damm check digit, as inspection/certificates/numbering.py) ----------------------

const DAMM = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2], [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9], [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8], [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4], [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5], [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
];

/** Damm check digit of a string of decimal digits. */
export function dammCheckDigit(digits) {
  let interim = 0;
  for (const ch of digits) interim = DAMM[interim][ch.charCodeAt(0) - 48];
  return String(interim);
}

function formatNumber(kind, year, serial) {
  const digits = String(year).padStart(4, '0') + String(serial).padStart(6, '0');
  return `${KIND_PREFIXES[kind]}-${digits.slice(0, 4)}-${digits.slice(4)}-${dammCheckDigit(digits)}`;
}

// --- claims ----------------------------------------------------------------------------------

const isUint = (v) => Number.isSafeInteger(v) && v >= 0;
const isText = (v) => typeof v === 'string' && v.length > 0;
const RESTRICTION_CODE = /^[A-Z]{1,3}$/; // as signing.py RESTRICTION_CODE
const LAST_DAY = 253402214400; // 9999-12-31 00:00 UTC: Python's dates end there, so its decoder refuses later ones

function isoDay(seconds, name) {
  if (!isUint(seconds) || seconds % DAY !== 0 || seconds > LAST_DAY) {
    throw new Malformed(`${name} is not a whole UTC day`);
  }
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The claims map as signing.py's to_cwt writes it for these claims: the only payload accepted for them. */
function toCwt(claims, iat, exp, number, kindCode) {
  const cwt = new Map([
    [1, claims.issuer], [6, iat], [4, exp], [-1, number], [-2, kindCode], [-3, claims.revision],
    [-4, claims.registration], [-5, claims.vessel_name.normalize('NFC')], [-6, claims.status_index],
  ]);
  if (claims.restrictions.length) cwt.set(-7, claims.restrictions);
  return cwt;
}

function claimsFromCwt(payload) {
  const cwt = cborDecode(payload);
  if (!(cwt instanceof Map)) throw new Malformed('payload is not a CBOR map');
  for (const key of [1, 4, 6, -1, -2, -3, -4, -5, -6]) {
    if (!cwt.has(key)) throw new Malformed(`missing claim ${key}`);
  }
  const kindCode = cwt.get(-2);
  const kind = typeof kindCode === 'string' && Object.hasOwn(KIND_NAMES, kindCode) ? KIND_NAMES[kindCode] : null;
  if (!kind) throw new Malformed('unknown certificate kind');
  const [iss, number, revision, registration, vesselName, statusIndex, iat, exp] = [
    cwt.get(1), cwt.get(-1), cwt.get(-3), cwt.get(-4), cwt.get(-5), cwt.get(-6), cwt.get(6), cwt.get(4),
  ];
  if (!isText(iss) || !isText(registration) || !isText(vesselName)) throw new Malformed('bad text claim');
  if (!isUint(number) || !isUint(revision) || !isUint(statusIndex)) throw new Malformed('bad integer claim');
  const year = Math.floor(number / 1e6);
  const serial = number % 1e6;
  if (year < 1000 || year > 9999 || serial === 0) throw new Malformed('number claim out of range');
  if (!isUint(exp) || exp < DAY || exp - DAY < iat) throw new Malformed('exp before iat');
  // What the vessel sails under instead of a detention ("D": daylight only, art. 73); absent when none.
  const restrictions = cwt.has(-7) ? cwt.get(-7) : [];
  if (!Array.isArray(restrictions) || !restrictions.every((code) => typeof code === 'string' && RESTRICTION_CODE.test(code))
      || restrictions.some((code, i) => i > 0 && !(restrictions[i - 1] < code))) {
    throw new Malformed('bad restrictions claim');
  }
  const claims = {
    issuer: iss,
    number: formatNumber(kind, year, serial),
    kind,
    revision,
    registration,
    vessel_name: vesselName,
    issued_on: isoDay(iat, 'iat'),
    valid_until: isoDay(exp - DAY, 'exp'),
    status_index: statusIndex,
    restrictions,
  };
  // No other claims, order or form (an empty -7, a longer length, a decomposed name): one payload per certificate.
  if (!sameBytes(cborEncode(toCwt(claims, iat, exp, number, kindCode)), payload)) {
    throw new Malformed('claims are not in the encoding sign_certificate writes');
  }
  return claims;
}

const ES256_HEADER = [0xa2, 0x01, 0x26, 0x04, 0x48]; // {1: -7, 4: h'<8 bytes>'}, the kid follows

/**
 * Unwrap base32 and COSE_Sign1 as sign_certificate writes them only (signing.py's _decode_cose): tag 18 (no
 * CWT tag 61, no bare array), an empty unprotected header, the protected header exactly {1: -7, 4: kid}, and
 * every length in its shortest form, so the bytes are their own re-encoding. Anything else is malformed.
 */
function decodeCose(token) {
  const data = base32Decode(token);
  const item = cborDecode(data);
  if (!(item instanceof Tagged) || item.tag !== 18) throw new Malformed('not a COSE_Sign1 (tag 18), nor wrapped in another tag');
  if (!Array.isArray(item.value) || item.value.length !== 4) throw new Malformed('COSE_Sign1 must have 4 items');
  const [prot, unprot, payload, signature] = item.value;
  if (!(prot instanceof Uint8Array) || !(payload instanceof Uint8Array)) {
    throw new Malformed('protected header and payload must be byte strings');
  }
  if (!(unprot instanceof Map) || !(signature instanceof Uint8Array)) {
    throw new Malformed('bad unprotected header or signature');
  }
  if (unprot.size) throw new Malformed('the unprotected header must be empty');
  if (signature.length !== 64) throw new Malformed('ES256 signature must be 64 bytes');
  if (prot.length !== ES256_HEADER.length + 8 || !ES256_HEADER.every((byte, i) => prot[i] === byte)) {
    throw new Malformed('protected header must be exactly {1: -7, 4: kid}');
  }
  if (!sameBytes(cborEncode(item), data)) throw new Malformed('COSE_Sign1 is not in its shortest, definite encoding');
  const kidBytes = prot.subarray(ES256_HEADER.length);
  const kid = Array.from(kidBytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return { kid, payload, signature, signed: sigStructure(prot, payload) };
}

// --- keys ------------------------------------------------------------------------------------

function findJwk(jwks, kid) {
  if (!jwks || typeof kid !== 'string') return null;
  const list = Array.isArray(jwks) ? jwks : Array.isArray(jwks.keys) ? jwks.keys : null;
  if (list) return list.find((k) => k && k.kid === kid) || null;
  return Object.prototype.hasOwnProperty.call(jwks, kid) ? jwks[kid] : null;
}

async function importJwk(jwk) {
  // Only the public point: alg/use/key_ops fields vary between JWK producers.
  return globalThis.crypto.subtle.importKey(
    'jwk',
    { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, ext: true },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
}

async function es256Verify(jwk, signature, data) {
  const key = await importJwk(jwk);
  return globalThis.crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, data);
}

// --- public API ------------------------------------------------------------------------------

/** A URL path segment as the server's router reads it (percent-decoded), or as written when it cannot be. */
export function pathSegment(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

/** Extract {base, token} from a scanned QR text (a /v/ URL or a bare token); null if neither. */
export function parseVerifyUrl(text) {
  if (typeof text !== 'string') return null;
  const trimmed = text.trim();
  if (/^[A-Za-z2-7]+$/.test(trimmed)) return { base: null, token: trimmed.toUpperCase() };
  let url;
  try { url = new URL(trimmed); } catch { return null; }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // Any text after /v/ is the token, as the server's route takes it: one in the wrong base is CÓDIGO ILEGIBLE there
  // and here, not a link the page refuses to read.
  const match = /^(.*)\/v\/([^/]+)\/?$/.exec(url.pathname);
  if (!match) return null;
  return { base: url.origin + match[1], token: pathSegment(match[2]).toUpperCase() };
}

/** The claims a token carries, read without its signature; null when unreadable. What names the vessel, never a verdict. */
export function readClaims(token) {
  try { return claimsFromCwt(decodeCose(token).payload); } catch { return null; }
}

/**
 * Verify a token against cached JWKs: {outcome, claims, kid}; never throws. The outcomes and their order are
 * signing.py's verify_token's: malformed, unknown_issuer, invalid_signature, malformed claims, high_s, ok.
 */
export async function verifyToken(token, jwks) {
  let cose;
  try {
    cose = decodeCose(token);
  } catch (err) {
    return { outcome: 'malformed', claims: null, kid: null, detail: String(err.message || err) };
  }
  let claims = null;
  let claimsError = '';
  try {
    claims = claimsFromCwt(cose.payload);
  } catch (err) {
    claimsError = String(err.message || err);
  }
  const jwk = findJwk(jwks, cose.kid);
  if (!jwk) return { outcome: 'unknown_issuer', claims, kid: cose.kid };
  let ok = false;
  try {
    ok = await es256Verify(jwk, cose.signature, cose.signed);
  } catch {
    return { outcome: 'unknown_issuer', claims, kid: cose.kid, detail: 'cached key is unusable' };
  }
  if (!ok) return { outcome: 'invalid_signature', claims, kid: cose.kid };
  if (!claims) return { outcome: 'malformed', claims: null, kid: cose.kid, detail: claimsError };
  if (!isLowS(cose.signature)) {
    return { outcome: 'high_s', claims, kid: cose.kid, detail: 'signature is high-S: only the record can vouch for it' };
  }
  return { outcome: 'ok', claims, kid: cose.kid };
}

// The order n of P-256's base point (SEC 2): sign_es256 writes s <= n / 2 only, as signing.py's is_low_s checks.
const P256_HALF_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551n / 2n;

/** True when a raw r || s signature's s is at most n/2: the one form new certificates carry. */
export function isLowS(signature) {
  const s = signature.subarray(32).reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  return s <= P256_HALF_ORDER;
}

async function inflate(bytes) {
  const ds = new globalThis.DecompressionStream('deflate'); // 'deflate' = zlib (RFC 1950)
  const writer = ds.writable.getWriter();
  writer.write(bytes).catch(() => {});
  writer.close().catch(() => {});
  const reader = ds.readable.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    let step;
    try { step = await reader.read(); } catch { throw new Malformed('lst is not zlib data'); }
    if (step.done) break;
    total += step.value.length;
    if (total > MAX_LIST_BYTES) {
      reader.cancel().catch(() => {});
      throw new Malformed('status list too large');
    }
    chunks.push(step.value);
  }
  return concat(chunks);
}

function jsonSegment(segment) {
  let obj;
  try { obj = JSON.parse(utf8.decode(b64urlDecode(segment))); } catch { obj = null; }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new StatusListError('malformed', 'JWS segment is not a JSON object');
  }
  return obj;
}

/** Verify a status list JWS: {iss, kid, iat, exp, ttl, bits, statuses}; throws StatusListError. */
export async function verifyStatusList(jws, jwks) {
  if (typeof jws !== 'string' || jws.split('.').length !== 3) {
    throw new StatusListError('malformed', 'not a compact JWS');
  }
  const [head, body, sig] = jws.split('.');
  const header = jsonSegment(head);
  if (header.alg !== 'ES256' || header.typ !== 'statuslist+jwt') {
    throw new StatusListError('malformed', 'expected alg ES256 and typ statuslist+jwt');
  }
  const jwk = findJwk(jwks, header.kid);
  if (!jwk) throw new StatusListError('unknown_issuer', 'no public key for this kid');
  let signature;
  try { signature = b64urlDecode(sig); } catch { throw new StatusListError('malformed', 'bad signature'); }
  let ok = false;
  try { ok = await es256Verify(jwk, signature, utf8enc.encode(`${head}.${body}`)); } catch { ok = false; }
  if (!ok) throw new StatusListError('invalid_signature', 'status list signature does not match');
  const payload = jsonSegment(body);
  const list = payload.status_list;
  if (!Number.isSafeInteger(payload.iat) || !Number.isSafeInteger(payload.exp)
      || !list || list.bits !== 2 || typeof list.lst !== 'string') {
    throw new StatusListError('malformed', 'bad status list payload');
  }
  let statuses;
  try { statuses = await inflate(b64urlDecode(list.lst)); } catch (err) {
    throw new StatusListError('malformed', String(err.message || err));
  }
  return {
    iss: payload.iss ?? null,
    kid: header.kid,
    iat: payload.iat,
    exp: payload.exp,
    ttl: Number.isSafeInteger(payload.ttl) ? payload.ttl : null,
    bits: 2,
    statuses,
  };
}

/** Status (0-3) at index of a verified list (or its packed bytes); RangeError outside it. */
export function statusAt(list, index) {
  const packed = list instanceof Uint8Array ? list : list.statuses;
  const bits = list instanceof Uint8Array ? 2 : list.bits || 2;
  if (!Number.isSafeInteger(index) || index < 0 || index * bits >= packed.length * 8) {
    throw new RangeError(`status index ${index} is outside the list`);
  }
  const bit = index * bits;
  return (packed[bit >> 3] >> (bit & 7)) & ((1 << bits) - 1);
}
