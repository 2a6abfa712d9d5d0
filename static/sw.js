// Baliza service worker (a module): the police verifier (/verificar) and the inspectors' tablet app
// keep working without signal, and the tablet's outbox is sent by Background Sync where the browser
// has it.
//
// Served from /sw.js with `Service-Worker-Allowed: /` so it can control the whole app
// (docs/style.md). The server replaces __BUILD__ below with a hash of this file and of every
// precached file, so any change to them installs a new worker with a new cache, and the
// old cache is deleted on activation.
//
// Strategies (only GET requests listed here are handled; everything else goes to the network
// untouched, so API writes never meet a cache):
//   /api/v1/keys, /api/v1/status-list  network first, the cached copy when offline; a copy from
//                                      the cache carries X-Baliza-From-Cache: 1 and every copy
//                                      X-Baliza-Fetched-At, so the page knows how old it is
//   /verificar (any query)             network first (short timeout), then the cached page
//   /v/{token} when the network fails  the cached /verificar, which reads the token from the path
//   /agenda, /tablet/inspeccion,       the tablet shells and the police phone's patrol check: network first
//   /patrulla                          (short timeout), then the
//                                      copy kept when the inspector last opened them signed in, one
//                                      per language (kept as `/agenda?lang=en`): the language of the
//                                      address (?lang=), else of the last page seen
//   /inspecciones/{id} (navigation)    network first; offline, the inspection shell, which renders
//                                      the inspection from IndexedDB
//   /                                  network first; offline, the agenda (or the verifier)
//   any other page (navigation)        the network; when it fails, the offline page (/sin-conexion)
//                                      in the user's language, saying what works without signal
//   precached static files             cache first
//
// Two precaches: the app's (the tablet, the offline page; installed by every visitor) and the police
// verifier's (its page, decoders and lists; kept when a police page asks, so tablets never carry them).
// Neither fetches twice what the page just loaded: the server writes every static file named here with its
// fingerprint (`?v=`, inspection/web/pwa.py), the URL the pages use, served immutable, so the install finds the
// page's copy in the HTTP cache. Where the browser has static routing, those URLs are then answered from the
// caches without waking this worker.
import { syncNow } from '/static/js/tablet/sync.js';

const CACHE = 'baliza-v2-__BUILD__';
const VERIFIER_CACHE = 'baliza-verifier-__BUILD__';
const CACHE_PREFIXES = ['baliza-verificar-', 'baliza-v2-', 'baliza-verifier-'];
const PAGE = '/verificar';
const LISTS = ['/api/v1/keys', '/api/v1/status-list'];
const VERIFIER = [
  '/static/js/verificar.js',
  '/static/js/lists.js',
  '/static/js/verifier.js',
  '/static/js/verdicts.js',
  '/static/vendor/jsQR.js',
  '/static/js/qr-photo.js',
  '/static/vendor/zxing-reader.js',
  '/static/vendor/zxing_reader.wasm',
  '/static/js/patrol/phone.js',
  '/static/js/patrol/flow.js',
  '/static/css/patrol.css',
];
const STATIC = [
  '/static/js/formats.js',
  '/static/js/i18n.js',
  '/static/js/pwa.js',
  '/static/js/date-words.js',
  '/static/js/tablet/aboard.js',
  '/static/js/tablet/agenda.js',
  '/static/js/tablet/app.js',
  '/static/js/tablet/backoff.js',
  '/static/js/tablet/engine.js',
  '/static/js/tablet/errors.js',
  '/static/js/tablet/exif.js',
  '/static/js/tablet/inspection.bundle.js',
  '/static/js/tablet/marks.js',
  '/static/js/tablet/dom.js',
  '/static/js/tablet/net.js',
  '/static/js/tablet/outbox.js',
  '/static/js/tablet/photos.js',
  '/static/js/tablet/position.js',
  '/static/js/tablet/queue.js',
  '/static/js/tablet/rules.js',
  '/static/js/tablet/screen.js',
  '/static/js/tablet/signature.js',
  '/static/js/tablet/store.js',
  '/static/js/tablet/sync.js',
  '/static/js/tablet/uploads.js',
  '/static/vendor/idb.js',
  '/static/css/baliza.css',
  '/manifest.webmanifest',
  '/static/icons/icon-192.png',
  '/static/icons/icon-512.png',
  '/static/icons/icon-maskable-512.png',
  '/static/icons/apple-touch-icon.png',
];
const PRECACHED = new Set([...STATIC, ...VERIFIER]);
const PAGE_TIMEOUT_MS = 4000;
const LANGUAGES = ['es', 'en'];  // as inspection/i18n/messages.py LANGUAGES
const AGENDA = '/agenda';
const SHELL = '/tablet/inspeccion';
const PATROL = '/patrulla';  // the police phone's patrol check: a shell kept like the tablet's, on a police visit
const TABLET_PAGES = [AGENDA, SHELL, PATROL];
const OUTBOX_TAG = 'baliza-outbox';
const OFFLINE = '/sin-conexion';
// The language of the last page the network sent (its Content-Language), kept across restarts of the worker.
const LANGUAGE_KEY = '/sin-conexion/idioma';
let language = null;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    // A fingerprinted file straight from the caches (the browser falls back to the network when none has it).
    if (event.addRoutes) {
      await event.addRoutes({ condition: { urlPattern: { pathname: '/static/*', search: 'v=*' } }, source: 'cache' })
        .catch(() => {});
    }
    await precache(await caches.open(CACHE), [...LANGUAGES.map((lang) => `${OFFLINE}?lang=${lang}`), ...STATIC]);
    // A device that kept the verifier (a police phone) keeps this build's too.
    if ((await caches.keys()).some((name) => name.startsWith('baliza-verifier-'))) await keepVerifier();
    await self.skipWaiting();
  })());
});

/**
 * Keep `urls` in `cache`. No cookies for pages: these are public, and a page's Set-Cookie arriving after a sign-in would
 * put back the signed-out session (the install runs while the login form is being sent); without cookies a page
 * comes in the default language, so each language's copy is named, and fresh (cache: 'reload'). A fingerprinted
 * file is this build's whoever answers, so the HTTP cache's copy (what the page just fetched) is taken as it is,
 * with the page's own credentials mode: the HTTP cache keeps credentialed copies apart.
 */
async function precache(cache, urls) {
  const kept = new Set((await cache.keys()).map((request) => new URL(request.url).pathname + new URL(request.url).search));
  await Promise.all(urls.filter((url) => !kept.has(url)).map(async (url) => {
    const response = await fetch(url, PRECACHED.has(url) ? { credentials: 'same-origin' } : { cache: 'reload', credentials: 'omit' });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    await cache.put(url, response);
  }));
}

/** The police verifier offline: its page in each language, its scripts and decoders, and the lists. */
async function keepVerifier() {
  const cache = await caches.open(VERIFIER_CACHE);
  // The lists first, and only those the page has not just stored through this worker (nothing fetched twice);
  // they are welcome but not required: the page keeps its own copy too. Then the page and the decoders.
  await Promise.all(LISTS.map((url) => cache.match(url)
    .then((kept) => kept || refreshList(cache, new Request(url))).catch(() => null)));
  await precache(cache, [PAGE, ...LANGUAGES.map((lang) => `${PAGE}?lang=${lang}`), ...VERIFIER]);
}

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names
      .filter((name) => CACHE_PREFIXES.some((prefix) => name.startsWith(prefix)) && ![CACHE, VERIFIER_CACHE].includes(name))
      .map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (LISTS.includes(url.pathname)) {
    event.respondWith(listNetworkFirst(request));
  } else if (url.pathname === PAGE) {
    event.respondWith(pageNetworkFirst(request));
  } else if (request.mode === 'navigate' && /^\/v\/[A-Za-z2-7]+\/?$/.test(url.pathname)) {
    event.respondWith(verifyPageOrOffline(request));
  } else if (TABLET_PAGES.includes(url.pathname)) {
    event.respondWith(tabletPage(event, url.pathname));
  } else if (request.mode === 'navigate' && /^\/inspecciones\/\d+\/?$/.test(url.pathname)) {
    event.respondWith(tabletPage(event, SHELL));
  } else if (request.mode === 'navigate' && url.pathname === '/') {
    event.respondWith(homeOrOffline(request));
  } else if (STATIC.includes(url.pathname + url.search)) {
    event.respondWith(cacheFirst(request, CACHE));
  } else if (VERIFIER.includes(url.pathname + url.search)) {
    event.respondWith(cacheFirst(request, VERIFIER_CACHE));
  } else if (request.mode === 'navigate') {
    event.respondWith(pageOrOffline(event, url));
  }
});

/**
 * Any other page from the network, untouched (no timeout: a report may take a while). When the network
 * fails, the offline page in the language of the address (?lang=), else of the last page seen, else Spanish,
 * instead of the browser's own "no internet" page.
 */
async function pageOrOffline(event, url) {
  try {
    const response = await fetch(event.request);
    event.waitUntil(remember(response.headers.get('Content-Language')));
    return response;
  } catch (err) {
    const cached = await (await caches.open(CACHE)).match(`${OFFLINE}?lang=${await readerLanguage(url)}`);
    if (cached) return cached;
    throw err;
  }
}

/** Keep `lang` as the reader's language (the last page's Content-Language, or the ?lang= asked offline). */
function remember(lang) {
  if (!LANGUAGES.includes(lang) || lang === language) return Promise.resolve();
  language = lang;
  return caches.open(CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(lang)));
}

/** The language a page is wanted in: the address's ?lang=, else the last one seen, else Spanish. */
async function readerLanguage(url) {
  const asked = url.searchParams.get('lang');
  if (LANGUAGES.includes(asked)) {
    await remember(asked);  // offline, the next page without ?lang= follows the switch as the server would
    return asked;
  }
  const kept = language || await (await caches.open(CACHE)).match(LANGUAGE_KEY).then((r) => (r ? r.text() : null));
  return LANGUAGES.includes(kept) ? kept : LANGUAGES[0];
}

/** Where a tablet shell is kept: one copy per language. */
const shellKey = (path, lang) => `${path}?lang=${lang}`;

/** Fetch a list and keep a copy stamped with the time it arrived. */
async function refreshList(cache, request) {
  const response = await fetch(request, { cache: 'no-store', credentials: 'omit' });
  if (response.ok) {
    const headers = new Headers(response.headers);
    headers.set('X-Baliza-Fetched-At', new Date().toISOString());
    const body = await response.clone().arrayBuffer();
    await cache.put(new URL(request.url).pathname,
      new Response(body, { status: response.status, statusText: response.statusText, headers }));
  }
  return response;
}

async function listNetworkFirst(request) {
  const cache = await caches.open(VERIFIER_CACHE);
  try {
    return await refreshList(cache, request);
  } catch (err) {
    const cached = await cache.match(new URL(request.url).pathname);
    if (!cached) throw err;
    const headers = new Headers(cached.headers);
    headers.set('X-Baliza-From-Cache', '1');
    return new Response(await cached.arrayBuffer(), { status: cached.status, headers });
  }
}

/** The network's answer, or a rejection after `ms` so a weak signal cannot hang the page. */
function fetchWithin(request, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    fetch(request).then(
      (response) => { clearTimeout(timer); resolve(response); },
      (err) => { clearTimeout(timer); reject(err); },
    );
  });
}

/** One cache entry per language: `?t=` links must not add a copy of the page per token. */
function pageKey(url) {
  const lang = url.searchParams.get('lang');
  return lang === 'es' || lang === 'en' ? `${PAGE}?lang=${lang}` : PAGE;
}

async function pageNetworkFirst(request) {
  const cache = await caches.open(VERIFIER_CACHE);
  const key = pageKey(new URL(request.url));
  let response = null;
  try {
    response = await fetchWithin(request, PAGE_TIMEOUT_MS);
    if (response.ok) {
      await cache.put(key, response.clone());
      return response;
    }
  } catch (err) {
    response = null;
  }
  // Offline, slow or failing server: the same language if cached, else the page from install.
  const cached = (await cache.match(key)) || (await cache.match(PAGE));
  if (cached) return cached;
  return response || Response.error();
}

async function verifyPageOrOffline(request) {
  try {
    return await fetch(request);
  } catch (err) {
    const cached = await caches.match(PAGE);
    if (!cached) throw err;
    return cached;
  }
}

/** A precached file from whichever precache holds it; fetched and kept in its own when neither does yet. */
async function cacheFirst(request, name) {
  const cached = await caches.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await (await caches.open(name)).put(request, response.clone());
  return response;
}

/**
 * A tablet shell from the network, handed to the page as it arrives while a copy is kept (under its
 * Content-Language when it is one: signed in, not the login page); offline, the copy kept in the language the
 * reader wants, a copy in the other language only when none is.
 */
async function tabletPage(event, key) {
  try {
    const response = await fetchWithin(event.request, PAGE_TIMEOUT_MS);
    const said = response.headers.get('Content-Language');
    if (isShell(response) && LANGUAGES.includes(said)) {
      const copy = response.clone();  // kept once the body is in, which the page does not wait for
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(shellKey(key, said), copy)));
    }
    event.waitUntil(remember(said));
    return response;
  } catch (err) {
    const cached = await keptShell(await caches.open(CACHE), key, await readerLanguage(new URL(event.request.url)));
    if (cached) return cached;
    throw err;
  }
}

async function keptShell(cache, key, lang) {
  for (const candidate of [lang, ...LANGUAGES.filter((other) => other !== lang)]) {
    const cached = await cache.match(shellKey(key, candidate));
    if (cached) return cached;
  }
  return null;
}

const isShell = (response) => response.ok && !response.redirected && response.headers.get('X-Baliza-Shell') === '1';

async function homeOrOffline(request) {
  try {
    return await fetchWithin(request, PAGE_TIMEOUT_MS);
  } catch (err) {
    const cache = await caches.open(CACHE);
    const lang = await readerLanguage(new URL(request.url));
    const cached = (await keptShell(cache, AGENDA, lang)) || (await caches.match(`${PAGE}?lang=${lang}`))
      || (await caches.match(PAGE));
    if (cached) return cached;
    throw err;
  }
}

/**
 * A police page (the verifier, a certificate's check) asks to keep the verifier offline: 'keep-verifier'; a page
 * loaded while the worker was activating asks to become its client: 'claim'.
 * Keep the signed-in inspector's shells in every language (asked by the agenda: the inspector may switch
 * language aboard), or drop them when someone signs out. A fetch's ?lang= does not change the session's
 * language (inspection/i18n/language.py): only a page the reader opens does.
 */
self.addEventListener('message', (event) => {
  const type = event.data && event.data.type;
  const everyShell = TABLET_PAGES.flatMap((path) => LANGUAGES.map((lang) => shellKey(path, lang)));
  if (type === 'keep-pages') {  // the inspector's agenda asks: the police phone's page is kept when police open it
    const inspectorShells = everyShell.filter((key) => !key.startsWith(PATROL));
    event.waitUntil((async () => {
      const cache = await caches.open(CACHE);
      await Promise.all(inspectorShells.map(async (key) => {
        const response = await fetch(key, { credentials: 'same-origin', cache: 'no-store' }).catch(() => null);
        if (response && isShell(response)) await cache.put(key, response);
      }));
    })());
  } else if (type === 'claim') {
    event.waitUntil(self.clients.claim());
  } else if (type === 'keep-verifier') {
    event.waitUntil(keepVerifier());
  } else if (type === 'signed-out') {
    event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(everyShell.map((key) => cache.delete(key)))));
  }
});

/**
 * Background Sync (Chromium): the browser wakes the worker when signal returns. An open, visible
 * tablet page sends the outbox itself (it shows progress by bytes); with none, the worker sends it.
 */
self.addEventListener('sync', (event) => {
  if (event.tag !== OUTBOX_TAG) return;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window' });
    const visible = windows.filter((client) => client.visibilityState === 'visible');
    if (visible.length) visible.forEach((client) => client.postMessage({ type: 'sync-now' }));
    else await syncNow();
  })());
});
