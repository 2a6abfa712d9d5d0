// Every page installs the one service worker (a module: it runs the tablet's outbox on Background
// Sync), so the app works offline from whichever page it was first opened on. It registers once the page
// has loaded, so the worker's install finds the page's files in the HTTP cache instead of fetching them
// again (static/sw.js); a police page then asks it to keep the verifier offline too.
const POLICE_PAGES = /^\/(verificar|patrulla|v\/[A-Za-z2-7]+)\/?$/;

if ('serviceWorker' in navigator) {
  const register = () => navigator.serviceWorker.register('/sw.js', { scope: '/', type: 'module' })
    .then(() => navigator.serviceWorker.ready)
    .then((ready) => {
      // A page that loaded while the worker was activating is not yet its client: it asks to be claimed.
      if (!navigator.serviceWorker.controller) ready.active.postMessage({ type: 'claim' });
      if (POLICE_PAGES.test(location.pathname)) ready.active.postMessage({ type: 'keep-verifier' });
    }).catch(() => {});
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}

// What this page says works offline (data-kept: the cached page it needs) is offered only where the device
// keeps it: a tablet never kept the police verifier, so its offline page does not send the inspector there.
if ('caches' in window) {
  for (const item of document.querySelectorAll('[data-kept]')) {
    caches.match(item.dataset.kept, { ignoreSearch: true }).then((kept) => { item.hidden = !kept; }).catch(() => {});
  }
}
