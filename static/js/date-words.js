// Date inputs keep the browser's native picker (tablets need it), which writes the date in the
// browser's locale ("12/01/2026" on an English tablet) whatever the page's language. Next to
// each one the chosen date is written in words in the page's language, as the pages write dates
// ("1 de diciembre de 2026"): the one form nobody misreads. Progressive enhancement: without
// this script the input still works and the server reads the same ISO value.
import { formatDay, pageLanguage } from './formats.js';

const lang = pageLanguage();

/** Put a live "in words" line after a date input and keep it in step with the chosen date. */
function describe(input) {
  const words = document.createElement('output'); // role=status: the new date is announced
  words.className = 'date-words';
  input.after(words);
  const show = () => {
    words.textContent = input.value && input.validity.valid
      ? formatDay(input.value, lang, input.dataset.dayWidth || 'long') : '';
  };
  input.addEventListener('input', show);
  input.addEventListener('change', show);
  show();
}

document.querySelectorAll('input[type="date"]').forEach(describe);
