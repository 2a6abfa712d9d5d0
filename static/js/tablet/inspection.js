// The inspection screen, rendered from the device's store: every change is saved on the tablet at
// once (no reload, no network needed) and queued for the server; progress per topic, "next
// unanswered", the article's text a tap away, photos, both drawn signatures, closing and interrupting.
// A topic's cards are made when it is opened (the first one with work left opens by itself).
import { inspectionId as id, records } from './first-read.js';  // first: the store's read starts before the rest runs
import { boot, enable, pageUser } from './app.js';
import { asBlob, byInspection, get, inspectionRecords, newId, put, storableBytes, StorageFull } from './store.js';
import { takeAboard } from './aboard.js';
import { el } from './dom.js';
import { discardPhoto, enqueue, keepAndQueue, keepAnswer, keepMarks, pendingFor, remove } from './outbox.js';
import { editMarks } from './marks.js';
import { preparePhoto } from './photos.js';
import { followPosition, placeOfPhoto, positionNote } from './position.js';
import { signaturePad } from './signature.js';
import { closingProblems, closingSummary, itemBound } from './rules.js';
import { answerChanged, closingMissing, inLanguage, isClosed, isStarted, itemStatus, newAnswer, openItems, photoLabel, progress, topicGroups,
         topicKey, withRemotePhotos } from './screen.js';
import { watch, whileNotSending } from './sync.js';
import { gettext } from '../i18n.js';
import { formatDay, formatMoment, pageLanguage } from '../formats.js';

const terms = JSON.parse(document.getElementById('terms').textContent);
const term = (group, value) => (terms[group] && terms[group][value]) || value;
const lang = pageLanguage();
const root = document.getElementById('inspection');
const state = { user: pageUser(), pkg: null, work: null, answers: new Map(), photos: new Map(), urls: new Map() };


function say(message, kind = 'alert') {
  const box = document.getElementById('screen-message');
  box.className = kind;
  box.textContent = message;
  box.hidden = !message;
}

async function saving(work) {
  try { return await work(); } catch (error) {
    say(error instanceof StorageFull ? error.message : gettext('No se pudo guardar en la tableta: {error}', { error: error.message }));
    throw error;
  }
}

const shown = new WeakMap();  // the package's items -> the same items in the page's language
const items = () => {
  const pinned = state.pkg.package.items;
  if (!shown.has(pinned)) shown.set(pinned, pinned.map((item) => inLanguage(item, lang)));
  return shown.get(pinned);
};
const closed = () => isClosed(state.work);
const started = () => isStarted(state.pkg, state.work);
const photosOf = (itemId) => state.photos.get(itemId) || [];

// --- loading --------------------------------------------------------------------------------------

/** The inspection from the store's `records` (taken aboard now if it is missing and there is signal, once `booted`). */
async function load(records, booted) {
  let kept = await records;
  if (!kept.pkg && navigator.onLine) {
    try {
      await booted;  // the device token first
      await takeAboard(state.user.userId, id);
      kept = await inspectionRecords(id);
    } catch (error) { /* shown below */ }
  }
  state.pkg = kept.pkg;
  state.work = kept.work || null;
  if (!state.pkg) {
    if (state.work && closed()) { renderClosedOnly(); return false; }
    root.replaceChildren(el('section', { class: 'card' },
      el('h1', { text: gettext('Esta inspección no está en la tableta') }),
      el('p', { text: gettext('Conéctese y ábrala desde «Mis inspecciones» para guardarla antes de salir.') }),
      el('a', { href: '/agenda', class: 'button primary', text: gettext('Mis inspecciones') })));
    return false;
  }
  const p = state.pkg.package;
  if (!state.work) {
    state.work = { id, user_id: state.user.userId, title: `${p.vessel.name} · ${p.vessel.registration}`,
                   kind: p.inspection.kind, signatures: {}, closing: null, interrupt: null };
  }
  kept.answers.forEach((a) => state.answers.set(a.item_id, a));
  kept.photos.forEach((ph) => {
    if (!state.photos.has(ph.item_id)) state.photos.set(ph.item_id, []);
    state.photos.get(ph.item_id).push(ph);
  });
  state.photos = withRemotePhotos(state.photos, p.photos);  // photos that reached the server from another session
  return true;
}

// --- rendering ------------------------------------------------------------------------------------

function render() {
  const p = state.pkg.package;
  document.title = `${p.vessel.registration} · ${term('kind', p.inspection.kind)} · Baliza`;
  const head = el('header', { class: 'insp-head' },
    el('h1', {}, `${p.vessel.name} `, el('span', { class: 'reg', text: p.vessel.registration })),
    el('p', { class: 'muted', text: `${term('kind', p.inspection.kind)} · ${formatDay(p.inspection.scheduled_on, lang)} · ${p.inspection.port}` }));
  const sticky = el('div', { class: 'progress-sticky', id: 'progress' },
    el('span', { id: 'progress-text' }),
    el('progress', { id: 'progress-bar', max: items().length, value: 0, 'aria-labelledby': 'progress-text' }),
    el('button', { type: 'button', id: 'next-unanswered', onclick: nextUnanswered, text: gettext('Siguiente sin responder') }),
    el('a', { href: '#cerrar', class: 'button', text: gettext('Cerrar') }));
  const parts = [head, el('div', { id: 'closed-banner', 'aria-live': 'polite' }), sticky, deficienciesCard(), startCard(),
                 topicNav()];
  const body = el('div', { id: 'items' });
  groups().forEach((g) => body.append(topicSection(g)));
  parts.push(body, closingCard(), interruptCard());
  root.replaceChildren(...parts.filter(Boolean));
  const first = openItems(items(), state.answers)[0] || items()[0];
  if (first) openTopic(topicKey(first));
  state.pads = {
    inspector: signaturePad(document.getElementById('sig-inspector'), (url) => setSignature('inspector', url)),
    master: signaturePad(document.getElementById('sig-master'), (url) => setSignature('master', url)),
  };
  state.pads.inspector.show(state.work.signatures.inspector);
  state.pads.master.show(state.work.signatures.master);
  refresh([]);  // the open topic's cards were brought up to date as they were made
}

const groups = () => topicGroups(items(), (checklist) => term('kind', checklist));

function deficienciesCard() {
  const open = state.pkg.package.open_deficiencies || [];
  if (!open.length) return null;
  return el('section', { class: 'card deficiencies' },
    el('h2', { text: gettext('Deficiencias pendientes a verificar') }),
    el('ul', {}, open.map((d) => el('li', {},
      el('a', { href: `#item-${d.item_id}`, text: d.description }),
      ` · ${d.source}, ${gettext('art.')} ${d.article}`,
      d.due_on ? ` · ${gettext('vence el {day}', { day: formatDay(d.due_on, lang) })}` : '',
      [' ', standingBadge(d)]))));
}

// The standing of an item (or deficiency), as templates/checklists/_standing.html: the authority's practice (a foreign
// instrument, a steamer's duty read onto a motor vessel) is an observation unless declared binding; an article may
// order a restriction instead of a detention. One pinned before standings had only a foreign instrument's.
function standingBadge(entry) {
  const ground = entry.standing || (entry.practice || entry.foreign ? 'foreign' : 'law');
  const key = entry.practice ? ground : `${ground}_binding`;
  const badges = [
    ground !== 'law' ? el('span', { class: `badge ${entry.practice ? 'warn practice' : 'foreign'}`, text: term('standing', key) }) : null,
    entry.restriction ? el('span', { class: 'badge warn restriction',
      text: gettext('Restricción: {label} (no causa detención)', { label: entry.restriction_label || entry.restriction }) }) : null,
  ].filter(Boolean);
  return badges.length ? el('span', { class: 'standing' }, badges) : null;
}

function startCard() {
  if (started()) return null;
  return el('section', { class: 'card start', id: 'start' },
    el('p', { text: gettext('Al comenzar se fijan la versión de la lista de verificación y los datos del buque; funciona sin conexión.') }),
    el('button', { type: 'button', class: 'primary huge', id: 'start-button', onclick: start, text: gettext('Comenzar') }));
}

function topicNav() {
  return el('nav', { class: 'topics', 'aria-label': gettext('Temas') },
    groups().map((g) => el('a', { href: `#topic-${cssId(g.key)}`, 'data-topic': g.key },
      g.title, ' ', el('span', { class: 'topic-count' }))));
}

const cssId = (text) => String(text).replace(/[^A-Za-z0-9_-]/g, '-');

/** A topic, closed: its cards are made when it is first opened, so the screen lays out only the topics in use. */
function topicSection(group) {
  const section = el('details', { class: 'topic-block', id: `topic-${cssId(group.key)}`,
                                  ontoggle: () => { if (section.open) buildTopic(section, group); } },
    el('summary', { class: 'topic-summary' },
      el('h2', { class: 'topic-title' }, group.title, ' ', el('span', { class: 'muted topic-count', 'data-topic': group.key }))));
  return section;
}

/** Make a topic's cards, once, up to date with their answers and photos. */
function buildTopic(section, group) {
  if (section.dataset.built) return;
  section.dataset.built = '1';
  section.append(...group.items.map(itemCard));
  group.items.forEach(refreshItem);
}

/** Open the topic of `key` (making its cards); returns its section. */
function openTopic(key) {
  const group = groups().find((g) => g.key === key);
  const section = document.getElementById(`topic-${cssId(key)}`);
  if (!group || !section) return null;
  buildTopic(section, group);
  section.open = true;
  return section;
}

/** Show what an address names (#item-… or #topic-…) on this screen, opening its topic first. */
function showTarget(hash) {
  const [, kind, name] = /^#(item|topic)-(.+)$/.exec(hash) || [];
  if (!kind || !state.pkg) return null;
  const key = decodeURIComponent(name);
  const item = kind === 'item' ? items().find((i) => i.id === key) : null;
  const group = kind === 'topic' ? groups().find((g) => cssId(g.key) === key) : null;
  const section = item ? openTopic(topicKey(item)) : group && openTopic(group.key);
  const target = item ? document.getElementById(`item-${item.id}`) : section;
  if (target) target.scrollIntoView({ block: 'start' });
  return target;
}

/** Links to an item or a topic open it before the browser looks for it. */
function followLinks(event) {
  const link = event.target.closest('a[href^="#item-"], a[href^="#topic-"]');
  if (!link || !showTarget(link.hash)) return;
  event.preventDefault();
  history.replaceState(null, '', link.hash);
}

function itemCard(item) {
  const answer = state.answers.get(item.id) || {};
  const disabled = !started() || closed();
  const titleId = `title-${cssId(item.id)}`;
  const choices = el('fieldset', { class: 'choices', disabled },
    el('legend', { class: 'sr-only', text: gettext('Resultado: {title}', { title: item.title }) }),
    ['pass', 'fail', 'not_applicable'].map((r) => el('label', { class: `choice choice-${r}` },
      el('input', { type: 'radio', name: `result-${item.id}`, value: r, checked: answer.result === r,
                    onchange: () => changed(item) }), ` ${term('result', r)}`)));
  const bound = itemBound(item);
  const fields = el('div', { class: 'answer-fields' });
  if (bound) {
    fields.append(el('label', { class: 'observed' }, `${gettext('Cantidad observada')} (${item.unit || ''})`,
      el('input', { type: 'number', name: 'observed', min: 0, step: item.whole === false ? 'any' : 1,
                    inputmode: item.whole === false ? 'decimal' : 'numeric', disabled,
                    value: answer.observed ?? '', oninput: () => changedSoon(item) })));
  }
  fields.append(el('label', { class: 'note' }, gettext('Nota'),
    el('textarea', { name: 'note', rows: 2, maxlength: 2000, disabled, oninput: () => changedSoon(item) }, answer.note || '')));
  const failed = answer.result === 'fail';
  fields.append(el('label', { class: 'action', hidden: !failed }, gettext('Acción si no cumple'),
    failed ? actionSelect(item, answer, disabled) : null));
  const input = el('input', { type: 'file', accept: 'image/*', capture: 'environment', class: 'sr-only', disabled,
                              'aria-label': gettext('Agregar foto: {title}', { title: item.title }),
                              onchange: (event) => addPhotos(item, event.target) });
  const photos = el('div', { class: 'photos' },
    el('label', { class: `button photo-button${disabled ? ' disabled' : ''}` }, input, gettext('Agregar foto')),
    el('ul', { class: 'thumbs', 'aria-label': gettext('Fotos del ítem') }));
  return el('article', { class: 'item card', id: `item-${item.id}`, 'data-item': item.id, 'aria-labelledby': titleId },
    el('h3', { id: titleId, text: item.title }),
    el('p', { class: 'line-meta' },
      el('span', { class: 'cite', text: `${item.source}, ${gettext('art.')} ${item.article}` }),
      bound ? el('span', { class: 'qty' }, `${gettext(bound.label)}: `, el('strong', { text: String(bound.value) }), ` ${item.unit || ''}`) : null,
      item.evidence_required ? el('span', { class: 'badge', text: gettext('Requiere foto') }) : null,
      item.detainable ? el('span', { class: 'badge bad', text: gettext('Causa detención') }) : null,
      standingBadge(item)),
    el('details', { class: 'article' }, el('summary', { text: gettext('Texto del artículo') }),
      el('blockquote', { class: 'law', text: item.text })),
    choices, fields, photos,
    el('p', { class: 'item-status', 'aria-live': 'polite' }));
}

/** The action for a failed item; made when the item first fails, so the other cards carry no options. */
function actionSelect(item, answer, disabled) {
  return el('select', { name: 'action', disabled, onchange: () => changed(item) },
    el('option', { value: '', text: gettext('Según la ley (por defecto)') }),
    Object.keys(terms.action).map((a) => el('option', { value: a, selected: answer.action === a, text: term('action', a) })));
}

function closingCard() {
  const p = state.pkg.package;
  // What was typed for the closing: kept on the tablet as it is typed (a reload loses nothing), an undone closing's too.
  const c = state.work.closing || { ...(state.work.undone_closing || {}), ...(state.work.typed || {}) };
  const disabled = closed() || !started();
  const keep = { oninput: keepTyped };
  return el('section', { class: 'card submit', id: 'cerrar' },
    el('h2', { text: gettext('Cerrar la inspección') }),
    el('div', { id: 'closing-state' }),
    el('div', { id: 'closing-problems', class: 'missing', tabindex: '-1', hidden: true }),
    el('div', { class: 'grid-form' },
      el('label', {}, gettext('Firma del inspector (nombre completo)'),
        el('input', { id: 'signature-name', autocomplete: 'name', minlength: 2, maxlength: 200, disabled, ...keep,
                      value: c.signature || state.user.fullName || '' })),
      el('label', {}, gettext('Capitán o patrón presente'),
        el('input', { id: 'master-name', minlength: 2, maxlength: 200, disabled, ...keep, value: c.master_name || '' })),
      el('label', {}, p.inspection.kind === 'navegabilidad'
        ? gettext('Término menor del certificado (art. 203, opcional)')
        : gettext('Próxima inspección antes de los seis meses (art. 211, opcional)'),
      el('input', { id: 'valid-until', type: 'date', disabled, ...keep, value: c.valid_until || '' })),
      ...(p.inspection.kind === 'seguridad' ? [
        el('label', {}, gettext('Informes o peritajes de averías (art. 233)'),
          el('input', { id: 'closing-reports', type: 'number', min: 0, max: 99, step: 1, disabled, ...keep, value: c.reports || 0 })),
        el('label', {}, gettext('Válvulas selladas de nuevo (arts. 219, 233)'),
          el('input', { id: 'closing-reseals', type: 'number', min: 0, max: 99, step: 1, disabled, ...keep, value: c.valve_reseals || 0 })),
      ] : [])),
    el('div', { class: 'signatures' },
      signatureBlock('inspector', gettext('Firma del inspector'), disabled),
      signatureBlock('master', gettext('Firma del capitán o patrón'), disabled)),
    el('section', { id: 'closing-summary', class: 'closing-summary', tabindex: '-1', hidden: true,
                    'aria-labelledby': 'closing-summary-title' }),
    el('button', { type: 'button', class: 'primary huge', id: 'close-button', disabled, onclick: reviewClosing,
                   text: gettext('Cerrar inspección') }));
}

function signatureBlock(role, label, disabled) {
  return el('div', { class: 'signature' },
    el('p', { class: 'signature-label', id: `sig-${role}-label`, text: label }),
    el('canvas', { id: `sig-${role}`, class: `signature-pad${disabled ? ' disabled' : ''}`, 'aria-labelledby': `sig-${role}-label` }),
    el('button', { type: 'button', class: 'clear-signature', disabled, 'aria-disabled': disabled ? 'true' : null,
                   onclick: () => state.pads[role].clear(), text: gettext('Borrar firma') }));
}

function interruptCard() {
  if (!started() || closed()) return null;
  return el('details', { class: 'card interrupt', id: 'interrumpir' },
    el('summary', { text: gettext('Interrumpir la inspección') }),
    el('p', { class: 'muted', text: gettext('Si la inspección no puede terminarse (el buque zarpó, el tiempo no lo permite), se interrumpe con el motivo: queda sin resultado, sin certificado y sin deficiencias.') }),
    el('label', {}, gettext('Motivo de la interrupción'), el('textarea', { id: 'interrupt-reason', minlength: 3, maxlength: 2000 })),
    el('button', { type: 'button', class: 'danger', onclick: interrupt, text: gettext('Interrumpir inspección') }));
}

function renderClosedOnly() {
  root.replaceChildren(el('h1', { text: state.work.title || gettext('Inspección {id}', { id }) }),
    el('section', { class: 'card submit', id: 'cerrar' }, el('div', { id: 'closing-state', 'aria-live': 'polite' })));
  refreshClosing();
}

// --- state on screen ------------------------------------------------------------------------------

/** Bring the screen up to date: the cards of `changedItems` (all by default), the progress and the closing. */
// What the screen shows is written only where it changed: a text or attribute written again, even the same, is
// styled, laid out and painted again, and an answer's frame would carry every counter of the screen.
function refresh(changedItems = items()) {
  const { answered, total, topics: perTopic } = progress(items(), state.answers);
  changedItems.forEach(refreshItem);
  setText(document.getElementById('progress-text'), gettext('Respondidos {n} de {total}', { n: answered, total }));
  setHidden(document.getElementById('next-unanswered'), closed());
  setHidden(document.querySelector('#progress a[href="#cerrar"]'), closed());
  const bar = document.getElementById('progress-bar');
  if (bar.value !== answered) bar.value = answered;
  document.querySelectorAll('[data-topic]').forEach((node) => {
    const t = perTopic.get(node.dataset.topic);
    const count = node.classList.contains('topic-count') ? node : node.querySelector('.topic-count');
    if (t && count) {
      setText(count, `${t.done}/${t.total}`);
      count.classList.toggle('ok', t.done === t.total);
    }
  });
  refreshClosing();
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

function refreshItem(item) {
  const card = document.getElementById(`item-${item.id}`);
  if (!card) return;
  const photos = photosOf(item.id);
  const view = itemStatus(item, state.answers.get(item.id), photos.length);
  if (card.dataset.state !== view.state) card.dataset.state = view.state;
  const action = card.querySelector('.action');
  setHidden(action, view.actionHidden);
  if (!view.actionHidden && !action.querySelector('select')) {
    action.append(actionSelect(item, state.answers.get(item.id) || {}, !started() || closed()));
  }
  const status = card.querySelector('.item-status');
  setText(status, view.text);
  if (status.className !== `item-status ${view.tone}`) status.className = `item-status ${view.tone}`;
  const thumbs = card.querySelector('.thumbs');
  if (photos.length || thumbs.firstChild) thumbs.replaceChildren(...photos.map((ph, n) => thumb(item, ph, n)));
  card.classList.toggle('needs-photo', view.needsPhoto);
}

function thumb(item, photo, n) {
  let src = photo.remote ? photo.urls.thumb : state.urls.get(photo.client_id);
  if (!src && photo.thumb) {
    src = URL.createObjectURL(asBlob(photo.thumb));
    state.urls.set(photo.client_id, src);
  }
  const label = photoLabel(photo.state);
  const li = el('li', { class: `thumb thumb-${photo.state || 'pending'}` },
    el('img', { src, alt: `${gettext('Foto de evidencia')} ${n + 1} (${label})`, width: 96, height: 96 }),
    el('span', { class: 'thumb-state', text: label }));
  if (photo.state !== 'sent' && !closed()) {
    li.append(el('button', { type: 'button', class: 'link', onclick: () => removePhoto(item, photo),
                             text: gettext('Quitar'), 'aria-label': gettext('Quitar foto {n}', { n: n + 1 }) }));
  }
  if (photo.bytes && !closed()) {  // marks over a photo of this tablet (issue 24); the photo stays as it was
    const marked = photo.marks && photo.marks.shapes.length;
    li.append(el('button', { type: 'button', class: 'link mark-button', onclick: () => markPhoto(item, photo),
                             text: marked ? gettext('Marcas ({n})', { n: marked }) : gettext('Marcar'),
                             'aria-label': gettext('Marcar el defecto en la foto {n}', { n: n + 1 }) }));
  }
  if (photo.state === 'failed' && photo.reason) li.append(el('span', { class: 'bad', text: photo.reason }));
  if (positionNote(photo)) li.append(el('span', { class: 'muted no-position', text: positionNote(photo) }));
  if (photo.marks_state === 'failed' && photo.marks_reason) {
    li.append(el('span', { class: 'bad', text: gettext('Marcas rechazadas: {reason}', { reason: photo.marks_reason }) }));
  }
  return li;
}

/** Draw marks over a photo; saved on the tablet and queued (sent once the photo is confirmed). */
async function markPhoto(item, photo) {
  const src = URL.createObjectURL(asBlob(photo.bytes));
  try {
    const layer = await editMarks({ src, width: photo.width, height: photo.height, sha256: photo.sha256, layer: photo.marks });
    if (!layer) return;
    await saving(() => keepMarks(state.user.userId, photo.client_id, layer, newId()));
    state.photos.set(item.id, photosOf(item.id).map((p) => (p.client_id === photo.client_id ? { ...p, marks: layer } : p)));
    refresh([item]);
  } finally {
    URL.revokeObjectURL(src);
  }
}

const closingShown = new WeakMap();  // the closing's box -> what it says: drawn again only when that changes

function refreshClosing() {
  const box = document.getElementById('closing-state');
  if (!box) return;
  const w = state.work;
  const problems = !(w.closing || w.interrupt) && started() ? closingProblems(items(), state.answers, state.photos) : null;
  const said = JSON.stringify([w.closing, w.interrupt, w.server_status, w.result, Boolean(state.pkg),
                               problems && [problems.ok, problems.unanswered.length + problems.incomplete.length]]);
  if (closingShown.get(box) === said) return;
  closingShown.set(box, said);
  box.replaceChildren();
  const banner = document.getElementById('closed-banner');
  if (banner) banner.replaceChildren();
  if (w.closing || w.interrupt) {
    const when = formatMoment((w.closing || w.interrupt).submitted_at || (w.interrupt || {}).at, lang);
    if (w.server_status === 'submitted' && w.result) {
      const cert = w.result.certificate;
      box.append(el('p', { class: 'ok big', text: `${gettext('Inspección cerrada y enviada')}: ${term('outcome', w.result.outcome)}` }));
      if (cert) {
        box.append(el('p', { class: 'certificate' }, `${gettext('Certificado')} `, el('strong', { text: cert.number }),
          ` · ${gettext('válido hasta el {day}', { day: formatDay(cert.valid_until, lang) })} `,
          el('a', { href: cert.pdf_url, text: gettext('Ver certificado (PDF)') })));
      }
      box.append(el('p', {}, el('a', { href: `/inspecciones/${id}/informe`, text: gettext('Ver el informe') })));
    } else if (w.server_status === 'interrupted') {
      box.append(el('p', { class: 'ok', text: gettext('Inspección interrumpida; el servidor lo registró.') }));
    } else {
      box.append(el('p', { class: 'warn big', text: w.interrupt ? gettext('Interrumpida en la tableta el {when}; se enviará al volver la señal.', { when })
        : gettext('Cerrada en la tableta el {when}; se enviará al volver la señal.', { when }) }));
      if (state.pkg) {
        box.append(el('p', { class: 'undo' }, el('button', { type: 'button', id: 'undo-close', onclick: undoClosing,
          text: w.interrupt ? gettext('Deshacer la interrupción') : gettext('Deshacer el cierre') }),
        ' ', el('span', { class: 'muted small', text: gettext('Posible mientras no se haya enviado.') })));
      }
    }
    const words = [...box.childNodes].filter((n) => !n.querySelector || !n.querySelector('button'));
    if (banner) banner.replaceChildren(el('section', { class: 'card closed-banner' }, ...words.map((n) => n.cloneNode(true))));
  } else if (problems) {
    box.append(el('p', { class: problems.ok ? 'ok' : 'muted', text: problems.ok ? gettext('Todo respondido: firme y cierre.')
      : gettext('Faltan {n} ítems por responder o completar.', { n: problems.unanswered.length + problems.incomplete.length }) }));
  }
}

// --- changes --------------------------------------------------------------------------------------

async function start(event) {
  if (started()) return;
  const button = event && event.currentTarget;
  if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }  // the tap is seen at once
  const startedAt = new Date().toISOString();
  state.work = { ...state.work, started_at: startedAt };
  try {  // the start and its entry in one transaction: never started here without the server being told
    await saving(() => keepAndQueue('work', state.work, { type: 'start', user_id: state.user.userId, inspection_id: id,
                                                          client_id: newId(), started_at: startedAt, pin: state.pkg.package.pin }));
  } catch (error) {
    state.work = { ...state.work, started_at: null };
    if (button) { button.disabled = false; button.removeAttribute('aria-busy'); }
    return;
  }
  followPosition();  // aboard: the one moment the position is asked for (issue 24)
  enableWork();
  const first = document.querySelector('#items input[type=radio]');
  if (first) first.focus();
}

/** After "Comenzar": the same elements, enabled (everything served disabled waited for the start), and the interruption. */
function enableWork() {
  document.getElementById('start').remove();
  root.querySelectorAll('#items [disabled], #cerrar [disabled]').forEach(enable);
  root.querySelectorAll('.photo-button.disabled, .signature-pad.disabled').forEach((node) => node.classList.remove('disabled'));
  document.getElementById('cerrar').after(interruptCard());
  refresh([]);  // the cards say the same started or not: the counts and the closing change
}

function readCard(item) {
  const card = document.getElementById(`item-${item.id}`);
  const chosen = card.querySelector('input[type=radio]:checked');
  const observed = card.querySelector('input[name=observed]');
  const value = observed && observed.value !== '' ? Number(observed.value) : null;
  const action = card.querySelector('select[name=action]');
  return { result: chosen ? chosen.value : null, observed: Number.isFinite(value) ? value : null,
           note: card.querySelector('textarea[name=note]').value,
           action: chosen && chosen.value === 'fail' && action ? (action.value || null) : null };
}

const timers = new Map();
function changedSoon(item) {
  clearTimeout(timers.get(item.id));
  timers.set(item.id, setTimeout(() => changed(item), 350));
}

/** Save the item's answer on the device now; queue it for the server when the law's checks pass. */
async function changed(item) {
  clearTimeout(timers.get(item.id));
  timers.delete(item.id);
  const values = readCard(item);
  const before = state.answers.get(item.id);
  const photos = photosOf(item.id).map((p) => p.sha256);
  if (!answerChanged(before, values, photos)) return;
  const answer = newAnswer(item, { inspectionId: id, clientId: newId(), values, photos, recordedAt: new Date().toISOString() });
  state.answers.set(item.id, answer);
  await saving(() => keepAnswer(state.user.userId, answer));
  refresh([item]);
}

async function addPhotos(item, input) {
  const files = [...input.files];
  input.value = '';
  const limits = state.pkg.package.photo_limits || (await get('meta', 'limits'));
  for (const file of files) {
    const refused = fileProblem(file, limits);
    if (refused) { say(refused); continue; }
    let prepared;
    const where = placeOfPhoto(file);  // the device's, else the camera's EXIF: found while the photo is prepared
    try {
      prepared = await preparePhoto(file, limits);
    } catch (error) {  // the decoder's own words are English: say it in the inspector's language
      say(gettext('No se pudo leer la foto «{name}»: el archivo está dañado o no es una imagen que la tableta pueda abrir.', { name: file.name }));
      continue;
    }
    try {
      if (photosOf(item.id).some((p) => p.sha256 === prepared.sha256)) { say(gettext('Esa foto ya está en el ítem.'), 'warn'); continue; }
      const record = { client_id: newId(), inspection_id: id, item_id: item.id, sha256: prepared.sha256,
                       size: prepared.size, mime: prepared.mime, width: prepared.width, height: prepared.height,
                       taken_at: new Date(file.lastModified || Date.now()).toISOString(), offset: 0, state: 'pending',
                       bytes: await storableBytes(prepared.blob), thumb: await storableBytes(prepared.thumb),
                       ...(await where) };
      await saving(() => put('photos', record));
      state.photos.set(item.id, [...photosOf(item.id), record]);
      await enqueue({ type: 'photo', user_id: state.user.userId, inspection_id: id, client_id: record.client_id, item_id: item.id });
      say(positionNote(record), 'warn');
    } catch (error) {
      if (!(error instanceof StorageFull)) say(gettext('No se pudo guardar en la tableta: {error}', { error: error.message }));
    }
  }
  if (state.answers.get(item.id)) await changed(item);
  else refresh([item]);
}

const MB = 1024 * 1024;

/** Why the tablet will not read `file`, before any work on it: not an image, or over the size it reads; else null. */
function fileProblem(file, limits) {
  if (file.type && !file.type.startsWith('image/')) {
    return gettext('«{name}» no es una foto: elija una imagen JPEG, PNG o WebP.', { name: file.name });
  }
  const most = limits && limits.max_decode_bytes;
  if (most && file.size > most) return gettext('La foto supera el límite de {mb} MB.', { mb: Math.floor(most / MB) });
  return null;
}

async function removePhoto(item, photo) {
  await discardPhoto(photo.client_id);
  state.photos.set(item.id, photosOf(item.id).filter((p) => p.client_id !== photo.client_id));
  if (state.urls.has(photo.client_id)) { URL.revokeObjectURL(state.urls.get(photo.client_id)); state.urls.delete(photo.client_id); }
  if (state.answers.get(item.id)) await changed(item);
  else refresh([item]);
}

async function setSignature(role, dataUrl) {
  state.work = { ...state.work, signatures: { ...state.work.signatures, [role]: dataUrl } };
  if (!dataUrl) delete state.work.signatures[role];
  await saving(() => put('work', state.work));
}

/** The first item to answer after the card being read (in checklist order, then from the top), shown and focused. */
function nextUnanswered() {
  const open = openItems(items(), state.answers);
  if (!open.length) { document.getElementById('cerrar').scrollIntoView(); return; }
  const here = window.scrollY + 80;
  const reading = [...document.querySelectorAll('#items details[open] > .item')]
    .filter((c) => c.getBoundingClientRect().top + window.scrollY <= here).pop();
  const order = items().map((item) => item.id);
  const from = reading ? order.indexOf(reading.dataset.item) : -1;
  const next = open.find((item) => order.indexOf(item.id) > from) || open[0];
  const card = showTarget(`#item-${next.id}`);
  const radio = card && card.querySelector('input[type=radio]');
  if (radio) radio.focus({ preventScroll: true });
}

/** Whether the inspection can be closed as it stands; if not, what is missing is shown and focused. */
function closable() {
  const problems = closingProblems(items(), state.answers, state.photos);
  const signature = document.getElementById('signature-name').value.trim();
  const master = document.getElementById('master-name').value.trim();
  const missing = closingMissing({ signature, master, signatures: state.work.signatures });
  const box = document.getElementById('closing-problems');
  if (!problems.ok || missing.length) {
    const link = (item) => el('li', {}, el('a', { href: `#item-${item.id}`, text: item.title }));
    box.replaceChildren(el('p', { role: 'alert' }, el('strong', { text: gettext('Todavía no se puede cerrar:') })),
      problems.unanswered.length ? el('p', { text: gettext('Ítems sin responder: {n}', { n: problems.unanswered.length }) }) : '',
      problems.unanswered.length ? el('ul', {}, problems.unanswered.map(link)) : '',
      problems.incomplete.length ? el('p', { text: gettext('Respuestas incompletas: {n}', { n: problems.incomplete.length }) }) : '',
      problems.incomplete.length ? el('ul', {}, problems.incomplete.map(link)) : '',
      problems.photos.length ? el('p', { text: gettext('Ítems sin la foto de evidencia: {n}', { n: problems.photos.length }) }) : '',
      problems.photos.length ? el('ul', {}, problems.photos.map(link)) : '',
      missing.length ? el('ul', {}, missing.map((m) => el('li', { text: m }))) : '',
      el('p', { class: 'muted small', text: gettext('Si no puede terminarse, interrúmpala con el motivo.') }));
    box.hidden = false;
    box.focus();
    return null;
  }
  box.hidden = true;
  return { signature, master };
}

/** The closing screen: what will be sent and the outcome it will produce, to confirm or to go back from. */
function reviewClosing() {
  if (!closable()) return;
  const sum = closingSummary(items(), state.answers, state.photos);
  const signed = (role) => (state.work.signatures[role] ? gettext('firmada') : gettext('falta'));
  const row = (label, value, cls) => el('div', { class: cls || null }, el('dt', { text: label }), el('dd', { text: String(value) }));
  const panel = document.getElementById('closing-summary');
  panel.replaceChildren(
    el('h3', { id: 'closing-summary-title', text: gettext('Revise lo que se enviará') }),
    el('dl', { class: 'summary-list' },
      row(gettext('Ítems respondidos'), gettext('{n} de {m}', { n: sum.answered, m: sum.total })),
      row(gettext('Cumple'), sum.pass),
      row(gettext('No cumple'), sum.fail),
      row(gettext('Causan detención'), sum.detentions, sum.detentions ? 'bad' : null),
      row(gettext('Observaciones'), sum.observations),
      row(gettext('Subsanados a bordo'), sum.rectified),
      row(gettext('No corresponde'), sum.not_applicable),
      row(gettext('Sin responder'), sum.unanswered, sum.unanswered ? 'bad' : null),
      row(gettext('Fotos'), sum.photos),
      row(gettext('Firma del inspector'), signed('inspector')),
      row(gettext('Firma del capitán o patrón'), signed('master'))),
    el('p', { class: `closing-outcome outcome-${sum.outcome}` }, `${gettext('Resultado que dará el cierre')}: `,
      el('strong', { id: 'closing-outcome', text: term('outcome', sum.outcome) })),
    el('p', { class: 'muted small', text: gettext('Al confirmar, la inspección queda cerrada en la tableta y se envía al volver la señal; puede deshacerse mientras no se haya enviado.') }),
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'primary huge', id: 'confirm-close', onclick: closeInspection, text: gettext('Confirmar y cerrar') }),
      el('button', { type: 'button', id: 'back-from-close', onclick: backFromClosing, text: gettext('Volver y revisar') })));
  panel.hidden = false;
  document.getElementById('close-button').hidden = true;
  panel.focus();
}

function backFromClosing() {
  document.getElementById('closing-summary').hidden = true;
  const button = document.getElementById('close-button');
  button.hidden = false;
  button.focus();
}

/** The closing's fields as typed: the two names, the shorter term and the counts (art. 233). */
function closingFields() {
  const validUntil = document.getElementById('valid-until');
  const count = (id) => { const input = document.getElementById(id); return input ? Math.max(0, parseInt(input.value, 10) || 0) : 0; };
  return { signature: document.getElementById('signature-name').value.trim(),
           master_name: document.getElementById('master-name').value.trim(),
           valid_until: validUntil && validUntil.value ? validUntil.value : null,
           reports: count('closing-reports'), valve_reseals: count('closing-reseals') };
}

let typing = null;
/** Keep what is typed for the closing on the tablet (as the answers are) until the inspection is closed. */
function keepTyped() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    if (closed()) return;
    state.work = { ...state.work, typed: closingFields() };
    saving(() => put('work', state.work)).catch(() => {});
  }, 300);
}

async function closeInspection() {
  const names = closable();
  if (!names) { backFromClosing(); return; }
  clearTimeout(typing);
  const { typed, ...work } = state.work;  // what was typed now travels with the closing
  state.work = { ...work, closing: { ...closingFields(), submitted_at: new Date().toISOString() } };
  await saving(() => keepAndQueue('work', state.work, { type: 'submit', user_id: state.user.userId, inspection_id: id, client_id: newId() }));
  render();
  document.getElementById('cerrar').scrollIntoView();
}

/** Take the closing (or interruption) back out of the outbox while it has not been sent; say so if it has. */
async function undoClosing() {
  const kind = state.work.interrupt ? 'interrupt' : 'submit';
  const taken = await whileNotSending(async () => {
    const entry = (await pendingFor(id)).find((e) => e.type === kind);
    if (!entry) return false;
    await remove(entry.seq);
    const stored = (await get('work', id)) || state.work;
    await put('work', { ...stored, closing: null, interrupt: null, undone_closing: stored.closing });
    return true;
  });
  if (!taken) {
    say(gettext('Ya se envió al servidor: no puede deshacerse.'), 'warn');
    await reread();
    return;
  }
  state.work = { ...state.work, closing: null, interrupt: null, undone_closing: state.work.closing };
  render();
  say(kind === 'submit' ? gettext('Cierre deshecho: la inspección sigue abierta en la tableta.')
    : gettext('Interrupción deshecha: la inspección sigue abierta en la tableta.'), 'ok');
  document.getElementById('cerrar').scrollIntoView();
}

async function interrupt() {
  const reason = document.getElementById('interrupt-reason').value.trim();
  if (reason.length < 3) { say(gettext('Escriba el motivo de la interrupción.')); return; }
  state.work = { ...state.work, interrupt: { reason, at: new Date().toISOString() } };
  await saving(() => keepAndQueue('work', state.work, { type: 'interrupt', user_id: state.user.userId, inspection_id: id,
                                                        client_id: newId(), reason_text: reason }));
  render();
}

// --- the server's confirmations arrive through the sync engine --------------------------------------

async function reread() {
  const work = await get('work', id);
  if (work) state.work = { ...state.work, server_status: work.server_status, result: work.result };
  if (!state.pkg) { refreshClosing(); return; }
  if (['submitted', 'interrupted'].includes(state.work.server_status)) {
    // The server confirmed everything and the device dropped its copy: what is on screen was all sent.
    for (const [itemId, answer] of state.answers) state.answers.set(itemId, { ...answer, state: 'sent' });
    for (const [itemId, list] of state.photos) state.photos.set(itemId, list.map((p) => ({ ...p, state: 'sent' })));
    refresh();
    return;
  }
  // Only the cards whose answer or photos the engine moved on are drawn again.
  const moved = new Set();
  const sameSend = (a, b) => a.state === b.state && a.reason === b.reason && a.offset === b.offset;
  (await byInspection('answers', id)).forEach((a) => {
    const mine = state.answers.get(a.item_id);
    if (mine && mine.client_id !== a.client_id) return;  // changed here since: the newer answer stays
    if (!mine || !sameSend(mine, a)) moved.add(a.item_id);
    state.answers.set(a.item_id, a);
  });
  const stored = new Map((await byInspection('photos', id)).map((p) => [p.client_id, p]));
  for (const [itemId, list] of state.photos) {
    if (list.some((p) => stored.has(p.client_id) && !sameSend(p, stored.get(p.client_id)))) moved.add(itemId);
    state.photos.set(itemId, list.map((p) => (stored.has(p.client_id) ? { ...p, ...stored.get(p.client_id) } : p)));
  }
  const failed = (await pendingFor(id)).filter((e) => e.state === 'failed');
  if (failed.length) say(gettext('{n} envíos de esta inspección fueron rechazados: vea el detalle arriba.', { n: failed.length }));
  refresh(items().filter((item) => moved.has(item.id)));
}

// The store is read while the page boots (the token, the sync engine): the screen is ready once it is drawn, and the
// engine starts beside it. Its records were asked for first (first-read.js): the screen's reads go before the engine's.
const booted = boot();
load(records, booted).then((loaded) => loaded && render()).then(() => {
  root.addEventListener('click', followLinks);
  window.addEventListener('hashchange', () => showTarget(location.hash));
  showTarget(location.hash);
  let pending = null;
  watch(() => { clearTimeout(pending); pending = setTimeout(reread, 150); });
  root.dataset.ready = '1';
});
