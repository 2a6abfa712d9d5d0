// "Mis inspecciones": the inspector's agenda (overdue, today, this week, later), which of them are
// ready without signal, and the ones closed on this tablet. Rendered from the device's store first,
// then refreshed from the server when there is signal.
import { boot } from './app.js';
import { all, get } from './store.js';
import { AHEAD_DAYS, dueSoon, keptAgenda, refreshAgenda, takeAboard } from './aboard.js';
import { ApiError } from './net.js';
import { gettext } from '../i18n.js';
import { formatDay, formatMoment, pageLanguage } from '../formats.js';

const terms = JSON.parse(document.getElementById('terms').textContent);
const term = (group, value) => (terms[group] && terms[group][value]) || value;
const lang = pageLanguage();

async function render(user) {
  const agenda = await keptAgenda(user.userId);
  const [packages, work] = await Promise.all([all('packages'), all('work')]);
  const ready = new Set(packages.filter((p) => p.user_id === user.userId).map((p) => p.id));
  const local = new Map(work.map((w) => [w.id, w]));
  const groups = { overdue: [], today: [], week: [], later: [] };
  const today = agenda ? agenda.today : new Date().toISOString().slice(0, 10);
  for (const entry of (agenda && agenda.items) || []) {
    const w = local.get(entry.id);
    if (w && (w.closing || w.interrupt)) continue;  // closed here: listed below
    const bucket = entry.bucket === 'week' && !dueSoon(entry, today) ? 'later' : entry.bucket;
    (groups[bucket] || groups.later).push(entry);
  }
  for (const [name, list] of Object.entries(groups)) {
    const ul = document.getElementById(`list-${name}`);
    ul.innerHTML = '';
    list.forEach((entry) => ul.append(card(user, entry, ready.has(entry.id), local.get(entry.id))));
    document.getElementById(`empty-${name}`).hidden = list.length > 0;
  }
  const closed = work.filter((w) => w.user_id === user.userId && (w.closing || w.interrupt));
  const ul = document.getElementById('list-closed');
  ul.innerHTML = '';
  closed.sort((a, b) => String(b.closing?.submitted_at || '').localeCompare(String(a.closing?.submitted_at || '')));
  closed.forEach((w) => ul.append(closedCard(w)));
  document.getElementById('section-closed').hidden = !closed.length;
  const state = document.getElementById('agenda-state');
  state.textContent = agenda ? gettext('Agenda actualizada: {when}', { when: formatMoment(agenda.fetched_at, lang) })
    : gettext('Conéctese una vez para descargar su agenda.');
}

function card(user, entry, isReady, work) {
  const li = document.createElement('li');
  li.className = 'agenda-card card';
  li.dataset.inspection = entry.id;
  const title = document.createElement('a');
  title.href = `/inspecciones/${entry.id}`;
  title.className = 'agenda-title';
  title.textContent = `${entry.vessel.name} · ${entry.vessel.registration}`;
  const meta = document.createElement('p');
  meta.className = 'muted';
  meta.textContent = `${term('kind', entry.kind)} · ${formatDay(entry.scheduled_on, lang)} · ${entry.port}`;
  const status = document.createElement('p');
  status.className = 'agenda-status';
  const local = work && work.started_at ? gettext('En curso en esta tableta') : term('status', entry.status);
  status.textContent = local;
  const aboard = document.createElement('p');
  aboard.className = isReady ? 'ok aboard' : 'warn aboard';
  aboard.textContent = isReady ? gettext('✓ Lista para trabajar sin conexión') : gettext('Aún no está en la tableta');
  li.append(title, meta, status, aboard);
  if (entry.review_status === 'returned' && entry.review_note) {  // art. 221: what the reviewer asked to correct
    const returned = document.createElement('p');
    returned.className = 'bad returned-note';
    returned.textContent = gettext('Devuelta por el revisor: {note}', { note: entry.review_note });
    li.append(returned);
  }
  if (!isReady) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = gettext('Guardar para sin conexión');
    button.addEventListener('click', async () => {
      button.disabled = true;
      try { await takeAboard(user.userId, entry.id); } catch (error) { aboard.textContent = error.message; }
      button.disabled = false;
      render(user);
    });
    li.append(button);
  }
  return li;
}

function closedCard(w) {
  const li = document.createElement('li');
  li.className = 'agenda-card card';
  const title = document.createElement('a');
  title.href = `/inspecciones/${w.id}`;
  title.className = 'agenda-title';
  title.textContent = w.title || gettext('Inspección {id}', { id: w.id });
  const status = document.createElement('p');
  const result = w.result;
  if (w.server_status === 'submitted' && result) {
    status.className = 'ok';
    status.textContent = `${term('outcome', result.outcome)}${result.certificate ? ` · ${gettext('Certificado {number}', { number: result.certificate.number })}` : ''}`;
  } else if (w.server_status === 'interrupted') {
    status.textContent = term('status', 'interrupted');
  } else {
    status.className = 'warn';
    status.textContent = gettext('Cerrada en la tableta; se enviará al volver la señal');
  }
  li.append(title, status);
  return li;
}

async function refresh(user) {
  if (!navigator.onLine) return;
  try {
    const agenda = await refreshAgenda(user.userId);
    await render(user);
    for (const entry of agenda.items.filter((e) => dueSoon(e, agenda.today, AHEAD_DAYS))) {
      const kept = await get('packages', entry.id);
      if (!kept || Date.now() - Date.parse(kept.refreshed_at || kept.fetched_at) > 5 * 60 * 1000) {
        await takeAboard(user.userId, entry.id).catch((error) => { if (!(error instanceof ApiError)) throw error; });
      }
    }
    if (navigator.serviceWorker) {
      navigator.serviceWorker.ready.then((registration) => registration.active.postMessage({ type: 'keep-pages' }));
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  await render(user);
}

boot().then(async (user) => {
  await render(user);
  await refresh(user);
  document.getElementById('tablet').dataset.ready = '1';
  window.addEventListener('online', () => refresh(user));
});
