// Search-as-you-type for the vessel boxes of the forms (scheduling, applying, the inspection filter):
// as one types a registration or a name, the box's <datalist> is filled with the first matches of the
// registry search (GET /buques/buscar?q=, the user's own scope). Progressive enhancement: without
// this script the box still works, and the server resolves what was typed (one match, or it says why not).
const WAIT_MS = 200; // a pause in typing before asking, so a word is one request, not one per key
const MIN_CHARS = 2;

/** Keep one search box's suggestions in step with what is typed in it. */
function suggest(input) {
  const list = document.getElementById(input.getAttribute('list'));
  let timer = null;
  let asked = '';
  const ask = async () => {
    const text = input.value.trim();
    if (text.length < MIN_CHARS || text === asked) return;
    asked = text;
    const url = `${input.dataset.vesselSearch}?q=${encodeURIComponent(text)}`;
    try {
      const response = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      if (!response.ok || input.value.trim() !== text) return; // refused, or typing went on meanwhile
      const { items } = await response.json();
      list.replaceChildren(...items.map((item) => {
        const option = document.createElement('option');
        option.value = item.label;
        return option;
      }));
    } catch {
      asked = ''; // offline for a moment: ask again on the next key
    }
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(ask, WAIT_MS);
  });
}

document.querySelectorAll('input[data-vessel-search]').forEach(suggest);
