// Every page installs the one service worker (a module: it runs the tablet's outbox on Background
// Sync), so the app works offline from whichever page it was first opened on.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/', type: 'module' }).catch(() => {});
}
