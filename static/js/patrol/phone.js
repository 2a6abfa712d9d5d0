// The police officer's patrol check on the phone (issue 23), with or without signal.
//
// Everything is kept on the phone first and queued in the tablet's outbox (static/js/tablet): the same store,
// client ids, sync engine and badge. A check is kept under its local key (flow.js checkKey) until the server's
// start answers with its id (engine.js PATROL). Steps: the craft (a scanned QR, a search, or an unregistered
// craft by type), the list, the items, the outcome.
import { boot, enable } from '../tablet/app.js';
import { all, get, newId, put, storableBytes } from '../tablet/store.js';
import { enqueue, keepAnswer } from '../tablet/outbox.js';
import { watch } from '../tablet/sync.js';
import { preparePhoto } from '../tablet/photos.js';
import { placeOfPhoto } from '../tablet/position.js';
import { gettext } from '../i18n.js';
import { WORDS } from '../verdicts.js';
import { readClaims } from '../verifier.js';
import { allowedOutcomes, checkKey, failedItems, findVessels, fineWords, firstList, isCounted, listChoices, listsOf, passAll,
  scannedFrom, startBody, stepCount, suggestedOutcome, unsendable, vesselByRegistration } from './flow.js';

const $ = (id) => document.getElementById(id);
const root = $('tablet');
const kit = JSON.parse($('patrol-kit').textContent);
const english = document.documentElement.lang === 'en';
const PLACE_KEY = 'patrol-place';
const STEPS = ['step-vessel', 'step-list', 'step-items', 'step-outcome', 'step-done'];
const CRAFT_WORDS = { rowing: gettext('Canoa o bote a remo'), sail: gettext('Vela'), motor: gettext('Motor') };
const LIST_WORDS = { menores: gettext('Embarcaciones menores'), conducta: gettext('Conducta en navegación'),
  documentacion: gettext('Documentación a bordo') };
const OUTCOME_WORDS = { sin_novedad: gettext('Sin novedad'), observaciones: gettext('Observaciones'),
  infraccion: gettext('Infracción'), retencion: gettext('Retención') };

let user = null;
let target = null;   // what is being checked: {label, lists, vessel_id?, craft?, verification?}
let check = null;    // the check in course: {key, client_id, checklist, items, answers, photos}

const word = (item, name) => (english && item[`${name}_en`]) || item[name];
const nowIso = () => new Date().toISOString();

function show(step) {
  STEPS.forEach((id) => { $(id).hidden = id !== step; });
  window.scrollTo(0, 0);
}

function say(text) {
  const box = $('patrol-message');
  box.textContent = text || '';
  box.hidden = !text;
}

// --- the craft ---------------------------------------------------------------------------------

function place() {
  return { place: $('place').value.trim(), latitude: position ? position.latitude : null,
           longitude: position ? position.longitude : null };
}

let position = null;

function locate() {
  if (!navigator.geolocation) { $('position').textContent = gettext('Este teléfono no da su posición.'); return; }
  $('position').textContent = gettext('Buscando la posición…');
  navigator.geolocation.getCurrentPosition((found) => {
    position = { latitude: found.coords.latitude, longitude: found.coords.longitude };
    $('position').textContent = gettext('Posición: {lat}, {lon}', { lat: position.latitude.toFixed(5), lon: position.longitude.toFixed(5) });
  }, () => { $('position').textContent = gettext('Sin posición: indique el lugar.'); }, { timeout: 10000, maximumAge: 60000 });
}

function choose(chosen) {
  const where = place();
  if (!where.place && where.latitude === null) {
    say(gettext('Indique el lugar o el kilómetro del río, o use la posición del teléfono.'));
    $('place').focus();
    return;
  }
  say('');
  put('meta', where.place, PLACE_KEY).catch(() => {});
  target = chosen;
  $('craft-label').textContent = chosen.label;
  const choices = $('list-choices');
  const open = listChoices(chosen.lists);
  const first = firstList(chosen.lists);
  choices.replaceChildren(...open.map((choice) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = choice.kind === first ? 'big' : 'big secondary';
    button.dataset.list = choice.kind;
    button.textContent = LIST_WORDS[choice.kind];
    if (choice.exemption) {
      button.disabled = true;
      button.setAttribute('aria-disabled', 'true');
      button.title = (english && choice.exemption.reason_en) || choice.exemption.reason;
      button.textContent += ` · ${gettext('no corresponde')}`;
    } else {
      button.addEventListener('click', () => start(choice.kind, choice.items));
    }
    return button;
  }));
  show('step-list');
}

function chooseCraft(type) {
  const marks = $('craft-marks').value.trim();
  const length = Number($('craft-length').value) || 5;
  choose({ label: `${CRAFT_WORDS[type] || type}${marks ? ` «${marks}»` : ''} · ${length} m · ${gettext('sin matrícula')}`,
           lists: listsOf(kit, kit.crafts[type]), craft: { type, marks, length_m: length } });
}

/** The vessel's lists from the server with signal; null without (the kit's then serve). */
async function vesselLists(query) {
  try {
    const response = await fetch(`${root.dataset.listsUrl}?${query}`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (response.ok) return response.json();
  } catch (error) { /* offline: the kit's lists */ }
  return null;
}

/**
 * The scanned certificate's vessel: the server's with signal; without, the kit's vessel of the registration the token
 * names (its lists as the server pins them; the server still finds the vessel by the token), else every patrol item.
 */
async function chooseScanned(scanned) {
  const found = await vesselLists(`t=${encodeURIComponent(scanned.token)}`);
  if (found) {
    choose({ label: found.vessel.label, lists: found.lists, vessel_id: found.vessel.id, verification: scanned });
    return;
  }
  const claims = readClaims(scanned.token);
  const known = claims && vesselByRegistration(kit, claims.registration);
  const verdict = scanned.verdict ? gettext(WORDS[scanned.verdict] || scanned.verdict) : '';
  choose(known ? { label: known.label, lists: listsOf(kit, known.lists), verification: scanned }
    : { label: `${gettext('Buque del QR escaneado')} · ${verdict}`, lists: kit.unknown, verification: scanned });
}

let searching = null;
async function search() {
  const text = $('vessel-query').value.trim();
  const results = $('vessel-results');
  if (text.length < 2) { results.replaceChildren(); return; }
  clearTimeout(searching);
  searching = setTimeout(async () => {
    let items = [];
    try {
      const response = await fetch(`${root.dataset.searchUrl}?q=${encodeURIComponent(text)}`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      if (response.ok) ({ items } = await response.json());
    } catch (error) {
      items = findVessels(kit, text);  // offline: the vessels the page brought
      if (!items.length) {
        results.replaceChildren(Object.assign(document.createElement('li'), { textContent: gettext('Sin señal: escanee el QR del certificado o registre la embarcación sin matrícula.') }));
        return;
      }
    }
    results.replaceChildren(...items.map((vessel) => {
      const li = document.createElement('li');
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'big secondary', textContent: vessel.label });
      button.addEventListener('click', async () => {
        const found = await vesselLists(`vessel_id=${vessel.id}`);
        const kept = (kit.vessels || []).find((known) => known.id === vessel.id);
        choose({ label: vessel.label, lists: found ? found.lists : kept ? listsOf(kit, kept.lists) : kit.unknown, vessel_id: vessel.id });
      });
      li.append(button);
      return li;
    }));
  }, 250);
}

// --- the check ---------------------------------------------------------------------------------

async function start(kind, items) {
  const clientId = newId();
  const key = checkKey(clientId);
  const body = startBody({ client_id: clientId, checked_at: nowIso(), checklist: kind, ...place(),
                           vessel_id: target.vessel_id, craft: target.craft, verification: target.verification });
  check = { key, client_id: clientId, checklist: kind, items, answers: {}, photos: {} };
  await put('work', { id: key, patrol: true, label: target.label, checklist: kind, items, created_at: body.checked_at });
  await enqueue({ type: 'patrol-start', user_id: user.userId, inspection_id: key, body });
  $('h-items').textContent = `${LIST_WORDS[kind]} · ${target.label}`;
  renderItems();
  show('step-items');
}

async function answer(item, value) {
  check.answers[item.id] = value;
  await keepAnswer(user.userId, { inspection_id: check.key, item_id: item.id, client_id: newId(), state: 'pending',
                                  reason: null, ...value }, 'patrol-answer');
  renderItem(item);
}

function renderItems() {
  $('items').replaceChildren(...check.items.map((item) => {
    const li = document.createElement('li');
    li.dataset.item = item.id;
    return li;
  }));
  check.items.forEach(renderItem);
}

function renderItem(item) {
  const li = $('items').querySelector(`[data-item="${item.id}"]`);
  const current = check.answers[item.id];
  const title = Object.assign(document.createElement('p'), { className: 'item-title', textContent: word(item, 'title') });
  const fine = item.fine ? ` · ${fineWords(item.fine, gettext)}` : '';
  const cite = Object.assign(document.createElement('p'), { className: 'article', textContent: `${item.source}, art. ${item.article}${fine}` });
  let control;
  if (isCounted(item)) {
    control = document.createElement('div');
    control.className = 'count';
    const minus = Object.assign(document.createElement('button'), { type: 'button', textContent: '−' });
    minus.setAttribute('aria-label', gettext('Uno menos'));
    const plus = Object.assign(document.createElement('button'), { type: 'button', textContent: '+' });
    plus.setAttribute('aria-label', gettext('Uno más'));
    const shown = document.createElement('output');
    shown.textContent = current ? String(current.observed) : '–';
    const has = (value) => value !== null && value !== undefined;
    const label = has(item.required) ? gettext('Requerido: {n} {unit}', { n: item.required, unit: word(item, 'unit') || '' })
      : has(item.maximum) ? gettext('Máximo: {n}', { n: item.maximum }) : (word(item, 'unit') || '');
    minus.addEventListener('click', () => answer(item, stepCount(item, check.answers[item.id], -1, nowIso())));
    plus.addEventListener('click', () => answer(item, stepCount(item, check.answers[item.id], 1, nowIso())));
    control.append(minus, shown, plus, Object.assign(document.createElement('span'), { className: 'muted', textContent: label }));
  } else {
    control = document.createElement('div');
    control.className = 'answers';
    [['pass', 'yes', gettext('Cumple')], ['fail', 'no', gettext('No cumple')]].forEach(([result, name, text]) => {
      const button = Object.assign(document.createElement('button'), { type: 'button', className: name, textContent: text });
      button.setAttribute('aria-pressed', String(!!current && current.result === result));
      button.addEventListener('click', () => answer(item, { result, observed: null, note: '', recorded_at: nowIso() }));
      control.append(button);
    });
  }
  const photo = document.createElement('label');
  photo.className = 'photo';
  const taken = check.photos[item.id] || 0;
  photo.textContent = taken ? gettext('Foto ({n})', { n: taken }) : gettext('Foto');
  const input = Object.assign(document.createElement('input'), { type: 'file', accept: 'image/*' });
  input.setAttribute('capture', 'environment');
  input.addEventListener('change', () => takePhoto(item, input.files[0]));
  photo.append(input);
  const state = Object.assign(document.createElement('p'), { className: 'state', textContent: current ? (current.result === 'fail' ? gettext('No cumple') : gettext('Cumple')) : '' });
  li.replaceChildren(title, cite, control, photo, state);
}

async function takePhoto(item, file) {
  if (!file) return;
  const where = placeOfPhoto(file);  // the phone's position with the photo, else the camera's EXIF one (issue 24)
  try {
    const prepared = await preparePhoto(file, await get('meta', 'limits').catch(() => null));
    const clientId = newId();
    await put('photos', { client_id: clientId, inspection_id: check.key, item_id: item.id, bytes: await storableBytes(prepared.blob),
                          size: prepared.size, mime: prepared.mime, sha256: prepared.sha256, taken_at: nowIso(), state: 'pending', offset: 0,
                          ...(await where) });
    await enqueue({ type: 'patrol-photo', user_id: user.userId, inspection_id: check.key, client_id: clientId, item_id: item.id });
    check.photos[item.id] = (check.photos[item.id] || 0) + 1;
    renderItem(item);
  } catch (error) {
    say(error.message || gettext('No se pudo guardar la foto.'));
  }
}

function toOutcome() {
  const wrong = unsendable(check.items, check.answers);
  if (wrong.length) {
    say(`${word(wrong[0].item, 'title')}: ${gettext(wrong[0].problems[0], { required: wrong[0].item.required, maximum: wrong[0].item.maximum, observed: check.answers[wrong[0].item.id].observed })}`);
    return;
  }
  say('');
  $('failures').replaceChildren(...failedItems(check.items, check.answers).map((item) => Object.assign(document.createElement('li'), {
    textContent: `${word(item, 'title')} (${item.source}, art. ${item.article}${item.fine ? ` · ${fineWords(item.fine, gettext)}` : ''})` })));
  refreshOutcomes(true);
  show('step-outcome');
}

function refreshOutcomes(preselect = false) {
  const allowed = allowedOutcomes(check.items, check.answers, $('note').value);
  document.querySelectorAll('#outcomes input').forEach((input) => {
    input.disabled = !allowed.includes(input.value);
    input.closest('label').hidden = input.disabled;
    if (input.disabled) input.checked = false;
  });
  if (preselect) {
    const suggested = document.querySelector(`#outcomes input[value="${suggestedOutcome(check.items, check.answers)}"]`);
    if (suggested && !suggested.disabled) suggested.checked = true;
  }
}

async function close() {
  const chosen = document.querySelector('#outcomes input:checked');
  if (!chosen) { say(gettext('Elija el resultado del control.')); return; }
  say('');
  const body = { client_id: newId(), outcome: chosen.value, note: $('note').value.trim() };
  await put('work', { ...(await get('work', check.key)), outcome: chosen.value, closed_at: nowIso() });
  await enqueue({ type: 'patrol-close', user_id: user.userId, inspection_id: check.key, body });
  check = null;
  $('note').value = '';
  show('step-done');
  renderRecent();
}

// --- what this phone holds ------------------------------------------------------------------------

async function renderRecent() {
  const [works, queued] = await Promise.all([all('work'), all('outbox')]);
  const waiting = new Set(queued.map((entry) => entry.inspection_id));
  const checks = works.filter((work) => work.patrol).sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).slice(0, 20);
  $('recent').replaceChildren(...checks.map((work) => {
    const li = document.createElement('li');
    li.dataset.check = work.id;
    const sent = work.server_status === 'closed' && !waiting.has(work.id);
    li.dataset.state = sent ? 'sent' : 'pending';
    li.textContent = `${LIST_WORDS[work.checklist]} · ${work.registration ? `${work.registration} · ` : ''}${work.label} · ${OUTCOME_WORDS[work.outcome] || gettext('abierto')} · `;
    li.append(Object.assign(document.createElement('span'), { className: 'state', textContent: sent ? gettext('Enviado') : gettext('Pendiente de envío') }));
    return li;
  }));
}

async function main() {
  user = await boot();
  $('place').value = (await get('meta', PLACE_KEY).catch(() => null)) || '';
  document.querySelectorAll('#craft-types [data-craft]').forEach((button) => {
    button.addEventListener('click', () => chooseCraft(button.dataset.craft));
    enable(button);
  });
  $('locate').addEventListener('click', locate);
  enable($('locate'));
  $('vessel-query').addEventListener('input', search);
  $('pass-all').addEventListener('click', async () => {
    const before = check.answers;
    const after = passAll(check.items, before, nowIso());
    for (const item of check.items) if (!before[item.id] && after[item.id]) await answer(item, after[item.id]);
  });
  $('to-outcome').addEventListener('click', toOutcome);
  $('back-to-items').addEventListener('click', () => show('step-items'));
  $('note').addEventListener('input', () => refreshOutcomes());
  $('close-check').addEventListener('click', close);
  $('new-check').addEventListener('click', () => { target = null; show('step-vessel'); });
  const scanned = scannedFrom(location.search);
  if (scanned) {
    $('scanned').hidden = false;
    $('scanned-verdict').textContent = scanned.verdict ? gettext(WORDS[scanned.verdict] || scanned.verdict) : '';
    $('use-scanned').addEventListener('click', () => chooseScanned(scanned));
    enable($('use-scanned'));
  }
  watch(() => { renderRecent(); });
  renderRecent();
  root.dataset.ready = '1';
}

main();
