// The page's words: Spanish is the source, written in the scripts as gettext('...') or N_('...')
// (pybabel extracts them with babel.cfg into the same catalog as the templates); the server puts
// the page language's translations in <script type="application/json" id="strings"> (data, not
// code), so the page keeps its language offline from the service worker's copy.

let catalog = null;

/** Mark a Spanish string for extraction; it is translated where it is shown, with gettext(). */
export const N_ = (text) => text;

/** The text in the page's language, with {name} placeholders filled from `params`. */
export function gettext(text, params = {}) {
  if (catalog === null) {
    const block = globalThis.document && document.getElementById('strings');
    catalog = block ? JSON.parse(block.textContent || '{}') : {};
  }
  const translated = catalog[text] || text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}
