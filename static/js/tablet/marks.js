// Marks on the defect (issue 24): a circle, an arrow and a short label drawn with a finger over a photo, offline.
//
// The marks are a layer apart (inspection/media/marks.py has the format, version 1): coordinates are fractions
// 0..1 of the picture, so every copy size shows them in place, and the photo's bytes are never touched. The
// editor is a full-screen dialog sized for the 820 × 1180 tablet: tools, undo, clear, cancel and save.
import { el } from './dom.js';
import { gettext } from '../i18n.js';

export const VERSION = 1;
export const MAX_SHAPES = 20;
export const LABEL_CHARS = 40;
const SVG = 'http://www.w3.org/2000/svg';
const COLOUR = '#e61e1e';
const MIN_DRAG = 0.01;  // a drag shorter than this (a fraction of the picture) is a slip, not a mark

const round = (v) => Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000;

/** The layer (format version 1) of `shapes` over the photo of hash `photoSha256`. */
export function layerOf(photoSha256, shapes) {
  return { version: VERSION, photo_sha256: photoSha256, shapes: shapes.slice(0, MAX_SHAPES) };
}

/** The shape a drag from `a` to `b` (fractions of the picture, `aspect` its width over its height) draws with `tool`,
 * or null for a slip: a circle centred on `a` through `b`, an arrow from `a` whose head is at `b`. */
export function shapeFromDrag(tool, a, b, aspect) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx * aspect, dy);
  if (length < MIN_DRAG) return null;
  if (tool === 'circle') {
    return { kind: 'circle', x: round(a.x), y: round(a.y), rx: round(Math.max(length / aspect, 0.0001)), ry: round(Math.max(length, 0.0001)) };
  }
  return { kind: 'arrow', x1: round(a.x), y1: round(a.y), x2: round(b.x), y2: round(b.y) };
}

/** A label at `p` with `text` trimmed and cut to LABEL_CHARS, or null when blank. */
export function labelAt(p, text) {
  const kept = (text || '').trim().slice(0, LABEL_CHARS);
  return kept ? { kind: 'label', x: round(p.x), y: round(p.y), text: kept } : null;
}

function svgNode(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
  return node;
}

/** Draw `shapes` into `svg` (viewBox = the picture's width × height), replacing what it held. */
export function drawShapes(svg, shapes, width, height) {
  const side = Math.max(width, height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const defs = svgNode('defs', {});
  const head = svgNode('marker', { id: 'mark-head', viewBox: '0 0 10 10', refX: '8', refY: '5', markerWidth: '5',
                                   markerHeight: '5', orient: 'auto-start-reverse' });
  head.append(svgNode('path', { d: 'M0,0 L10,5 L0,10 z', fill: COLOUR }));
  defs.append(head);
  const line = { stroke: COLOUR, 'stroke-width': String(0.006 * side), fill: 'none', 'stroke-linecap': 'round' };
  const nodes = shapes.map((s) => {
    if (s.kind === 'circle') return svgNode('ellipse', { cx: s.x * width, cy: s.y * height, rx: s.rx * width, ry: s.ry * height, ...line });
    if (s.kind === 'arrow') {
      return svgNode('line', { x1: s.x1 * width, y1: s.y1 * height, x2: s.x2 * width, y2: s.y2 * height, 'marker-end': 'url(#mark-head)', ...line });
    }
    const text = svgNode('text', { x: s.x * width, y: s.y * height, 'font-size': String(0.035 * side), fill: COLOUR,
                                   stroke: '#fff', 'stroke-width': String(0.004 * side), 'paint-order': 'stroke',
                                   'font-weight': 'bold', 'font-family': 'sans-serif' });
    text.textContent = s.text;
    return text;
  });
  svg.replaceChildren(defs, ...nodes);
}


/**
 * Open the editor over `src` (the photo's local bytes as a URL; `width` × `height` its pixels) with the shapes of
 * `layer` (or none); resolves with the new layer on save, or null on cancel.
 */
export function editMarks({ src, width, height, sha256, layer }) {
  let shapes = layer ? layer.shapes.map((s) => ({ ...s })) : [];
  let tool = 'circle';
  let start = null;
  const aspect = width / height;
  return new Promise((resolve) => {
    const svg = svgNode('svg', { class: 'marks-layer', preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    const picture = el('div', { class: 'marks-picture', style: `aspect-ratio: ${width} / ${height}; width: min(100%, calc((100vh - 15rem) * ${aspect.toFixed(4)}))` },
      el('img', { src, alt: gettext('Foto de evidencia'), draggable: 'false' }), svg);
    const text = el('input', { type: 'text', maxlength: String(LABEL_CHARS), class: 'marks-text',
                               placeholder: gettext('Texto del rótulo'), 'aria-label': gettext('Texto del rótulo') });
    const count = el('span', { class: 'marks-count small muted', 'aria-live': 'polite' });
    const tools = [['circle', gettext('Círculo')], ['arrow', gettext('Flecha')], ['label', gettext('Rótulo')]]
      .map(([name, label]) => el('button', { type: 'button', class: 'marks-tool', 'data-tool': name, 'aria-pressed': String(name === tool),
                                             onclick: () => choose(name), text: label }));
    const undo = el('button', { type: 'button', text: gettext('Deshacer'), onclick: () => { shapes.pop(); redraw(); } });
    const clear = el('button', { type: 'button', text: gettext('Borrar todo'), onclick: () => { shapes = []; redraw(); } });
    const save = el('button', { type: 'button', class: 'primary', text: gettext('Guardar marcas'),
                                onclick: () => close(layerOf(sha256, shapes)) });
    const cancel = el('button', { type: 'button', text: gettext('Cancelar'), onclick: () => close(null) });
    const dialog = el('dialog', { class: 'marks-editor', 'aria-label': gettext('Marcar el defecto') },
      el('div', { class: 'marks-tools', role: 'toolbar' }, tools, text),
      picture,
      el('p', { class: 'small muted', text: gettext('Arrastre para dibujar un círculo o una flecha (la punta señala el defecto); toque para poner el rótulo. La foto original no se modifica.') }),
      el('div', { class: 'marks-actions' }, undo, clear, count, cancel, save));

    function choose(name) {
      tool = name;
      tools.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.tool === name)));
      if (name === 'label') text.focus();
    }
    function redraw() {
      drawShapes(svg, shapes, width, height);
      count.textContent = gettext('{n} de {max} marcas', { n: shapes.length, max: MAX_SHAPES });
      undo.disabled = clear.disabled = !shapes.length;
    }
    function point(event) {
      const rect = svg.getBoundingClientRect();
      return { x: (event.clientX - rect.left) / rect.width, y: (event.clientY - rect.top) / rect.height };
    }
    function add(shape) {
      if (shape && shapes.length < MAX_SHAPES) shapes.push(shape);
      redraw();
    }
    svg.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      svg.setPointerCapture(event.pointerId);
      start = point(event);
    });
    svg.addEventListener('pointermove', (event) => {
      if (!start || tool === 'label') return;
      const preview = shapeFromDrag(tool, start, point(event), aspect);
      drawShapes(svg, preview ? [...shapes, preview] : shapes, width, height);
    });
    svg.addEventListener('pointerup', (event) => {
      if (!start) return;
      const from = start;
      start = null;
      add(tool === 'label' ? labelAt(from, text.value) : shapeFromDrag(tool, from, point(event), aspect));
    });
    svg.addEventListener('pointercancel', () => { start = null; redraw(); });
    function close(result) {
      dialog.close();
      dialog.remove();
      resolve(result);
    }
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(null); });
    document.body.append(dialog);
    redraw();
    dialog.showModal();
  });
}
