// What every tablet page does first: the service worker, persistent storage, the device token,
// the sync engine and its badge, and a warning before signing out with unsent work.
import { askPersistence, all, put } from './store.js';
import { deviceToken, enrollDevice } from './net.js';
import { startSyncing, syncNow, syncSoon, watch } from './sync.js';
import { entries, retry } from './outbox.js';
import { takeAboardAgain } from './aboard.js';
import { gettext } from '../i18n.js';
import { formatMoment, pageLanguage } from '../formats.js';

/** The page's signed-in inspector: {userId, csrf, fullName} from the page's data attributes. */
export function pageUser() {
  const root = document.getElementById('tablet');
  return { userId: Number(root.dataset.user), csrf: root.dataset.csrf, fullName: root.dataset.name || '' };
}

/**
 * Boot the page's shared parts: the badge, the sign-out warning and the worker's messages are wired at once (the
 * screen does not wait for the rest); resolves with the page user once the device has its token. The sync engine
 * starts at the browser's next quiet moment.
 */
export function boot() {
  const user = pageUser();
  badge(user);
  guardSignOut();
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.addEventListener('message', (event) => {
      // the worker's Background Sync (every new entry asks for one): sent with the next pause, not between two taps
      if (event.data && event.data.type === 'sync-now') syncSoon();
    });
  }
  askPersistence().then((persisted) => {  // the browser may take a while to decide: nothing waits for it
    const note = document.getElementById('storage-note');
    if (note) note.textContent = persisted ? gettext('Almacenamiento persistente concedido: el navegador no borrará el trabajo guardado.')
      : gettext('El navegador puede borrar datos guardados si falta espacio: instale la app y sincronice a menudo.');
  });
  put('meta', user.userId, 'last-user').catch(() => {});
  return (async () => {
    if (navigator.onLine && !(await deviceToken(user.userId))) {
      try { await enrollDevice(user.userId, user.csrf); } catch (error) { /* offline or session gone: the badge says so */ }
    }
    idle().then(startSyncing);  // the engine's first look at the outbox waits for the page to be drawn
    return user;
  })();
}

/** Resolves when the browser has a quiet moment (at most a second from now). */
const idle = () => new Promise((resolve) => (window.requestIdleCallback ? requestIdleCallback(resolve, { timeout: 1000 })
  : setTimeout(resolve, 50)));

/** A control served disabled until its script is wired (the HTML as served says so): now it works. */
export function enable(control) {
  control.disabled = false;
  control.removeAttribute('aria-disabled');
}

function human(bytes) {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Unsent work on this device: entries and bytes of photos not yet sent. */
export async function unsentWork() {
  const [queue, photos] = await Promise.all([entries(), all('photos')]);
  const bytes = photos.filter((p) => p.state !== 'sent').reduce((s, p) => s + p.size - (p.offset || 0), 0);
  return { entries: queue.length, failed: queue.filter((e) => e.state === 'failed'), bytes };
}

function badge(user) {
  const el = document.getElementById('sync-badge');
  if (!el) return;
  const text = el.querySelector('.sync-text');
  const bar = el.querySelector('progress');
  const button = el.querySelector('button');
  const problems = document.getElementById('sync-problems');
  button.addEventListener('click', () => syncNow({ force: true }));  // the inspector may know the server is back
  enable(button);  // served disabled: a tap before this line would do nothing
  let counted = null;  // the unsent work is read again when an entry is done, not on every byte of progress
  watch(async (status) => {
    const lang = pageLanguage();
    const last = status.last_sync ? gettext('Última sincronización: {when}', { when: formatMoment(status.last_sync, lang) })
      : gettext('Aún no sincronizó');
    el.dataset.state = status.state;
    bar.hidden = status.state !== 'syncing';
    if (status.state === 'syncing') {
      text.textContent = gettext('Sincronizando {n} de {m}', { n: Math.min(status.done + 1, status.total), m: status.total });
      bar.max = Math.max(1, status.bytes_total || 1);
      bar.value = Math.min(bar.max, status.bytes_done || 0);
      bar.setAttribute('aria-valuetext', status.bytes_total ? `${human(status.bytes_done || 0)} / ${human(status.bytes_total)}` : '');
    } else if (status.state === 'offline') {
      text.textContent = `${gettext('Sin conexión')} · ${gettext('{n} pendientes', { n: status.pending || 0 })} · ${last}`;
    } else if (status.state === 'retrying') {
      const why = status.server_asked ? gettext('El servidor pidió esperar') : gettext('El servidor no responde; se reintentará');
      const next = status.retry_at ? gettext('Próximo intento: {when}', { when: formatMoment(status.retry_at, lang) }) : '';
      text.textContent = [why, next, gettext('{n} pendientes', { n: status.pending || 0 })].filter(Boolean).join(' · ');
    } else if (status.state === 'signin') {
      text.innerHTML = '';
      const link = document.createElement('a');
      link.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      link.textContent = gettext('Inicie sesión de nuevo para enviar lo pendiente');
      text.append(link, ` · ${gettext('{n} pendientes', { n: status.pending || 0 })}`);
    } else if (status.pending) {
      text.textContent = `${gettext('{n} pendientes', { n: status.pending })} · ${last}`;
    } else {
      text.textContent = status.last_sync ? `${gettext('Al día')} · ${last}` : gettext('Nada pendiente de envío');
    }
    const step = `${status.state}/${status.done}/${status.pending}/${status.failed}`;
    if (step === counted) return;
    counted = step;
    const work = await unsentWork();
    const size = document.getElementById('unsent-size');
    const unsent = el.dataset.device === 'phone' ? gettext('Sin enviar en este teléfono: {n} cambios, {size} de fotos', { n: work.entries, size: human(work.bytes) })
      : gettext('Sin enviar en esta tableta: {n} cambios, {size} de fotos', { n: work.entries, size: human(work.bytes) });
    if (size) size.textContent = work.entries ? unsent : '';
    if (problems) showProblems(problems, work.failed);
  });
}

const WHAT_TO_DO = {
  answer: () => gettext('Corrija la respuesta del ítem; se enviará de nuevo.'),
  photo: () => gettext('Tome la foto de nuevo o descártela.'),
  start: () => gettext('Vuelva a descargar la inspección con conexión.'),
  submit: () => gettext('Revise lo que falta y cierre de nuevo.'),
  interrupt: () => gettext('Revise el motivo e intente de nuevo.'),
};

function showProblems(list, failed) {
  list.hidden = !failed.length;
  const items = list.querySelector('ul');
  items.innerHTML = '';
  failed.forEach((entry) => {
    const li = document.createElement('li');
    const where = entry.item_id ? ` (${entry.item_id})` : '';
    const link = document.createElement('a');
    link.href = `/inspecciones/${entry.inspection_id}${entry.item_id ? `#item-${entry.item_id}` : ''}`;
    link.textContent = gettext('Inspección {id}', { id: entry.inspection_id }) + where;
    const again = document.createElement('button');
    again.type = 'button';
    if (entry.code === 'checklist-changed') {
      again.textContent = gettext('Descargar de nuevo');
      again.addEventListener('click', async () => {
        again.disabled = true;
        try {
          const dropped = await takeAboardAgain(entry.user_id, entry.inspection_id);
          window.alert(dropped.length ? gettext('Descargada de nuevo. Ya no están en la lista y se quitaron: {items}.', { items: dropped.join(', ') })
            : gettext('Descargada de nuevo; sus respuestas se conservan.'));
          location.reload();
        } catch (error) { again.disabled = false; window.alert(error.message); }
      });
    } else {
      again.textContent = gettext('Reintentar');
      again.addEventListener('click', () => retry(entry.seq));
    }
    li.append(link, ': ', entry.reason || '', ' ', (WHAT_TO_DO[entry.type] || (() => ''))(), ' ', again);
    items.append(li);
  });
}

function guardSignOut() {
  const form = document.querySelector('form[action="/logout"]');
  if (!form) return;
  form.addEventListener('submit', async (event) => {
    if (form.dataset.confirmed) return;
    event.preventDefault();
    const work = await unsentWork();
    if (!work.entries || window.confirm(gettext('Hay {n} cambios sin enviar en esta tableta. Se conservan y se enviarán cuando vuelva a iniciar sesión. ¿Salir igualmente?', { n: work.entries }))) {
      form.dataset.confirmed = '1';
      if (navigator.serviceWorker && navigator.serviceWorker.controller) {
        navigator.serviceWorker.controller.postMessage({ type: 'signed-out' });
      }
      form.submit();
    }
  });
  form.querySelectorAll('button[aria-disabled]').forEach(enable);  // served disabled: now it warns first
}

