// A photo is checked before it is sent: a file input with data-max-bytes refuses a file over that
// size, or one that is not among its `accept` types, saying so at the field (the words come from
// the page in its language: data-too-large with {size}, data-wrong-type) and keeping the form as
// typed, so a 32 MB picture never travels only to be refused. The server checks again.

const MIB = 1024 * 1024;

/** "32,4 MB" in a Spanish page, "32.4 MB" in an English one (MB meaning MiB, as the limit does). */
function megabytes(size) {
  const figure = (Math.round((size / MIB) * 10) / 10).toString();
  return `${document.documentElement.lang === 'en' ? figure : figure.replace('.', ',')} MB`;
}

/** What is wrong with the chosen file, or '' when it may be sent. */
function problemWith(input) {
  const file = input.files && input.files[0];
  if (!file) return '';
  const accepted = (input.accept || '').split(',').map((type) => type.trim()).filter(Boolean);
  if (accepted.length && !accepted.includes(file.type)) return input.dataset.wrongType || '';
  if (file.size > Number(input.dataset.maxBytes)) return (input.dataset.tooLarge || '').replace('{size}', megabytes(file.size));
  return '';
}

function check(input) {
  const problem = problemWith(input);
  input.setCustomValidity(problem);
  const shown = document.getElementById(input.getAttribute('aria-describedby') || '');
  if (shown) shown.textContent = problem;
  if (problem) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  return !problem;
}

for (const input of document.querySelectorAll('input[type=file][data-max-bytes]')) {
  input.addEventListener('change', () => check(input));
  input.form?.addEventListener('submit', (event) => {
    if (!check(input)) {
      event.preventDefault();
      input.focus();
    }
  });
}
