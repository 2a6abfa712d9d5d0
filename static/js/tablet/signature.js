// A signature drawn with a finger or a stylus on a canvas; kept as a PNG data URL.
import { gettext } from '../i18n.js';

/** Make `canvasEl` a signature pad; `onChange(dataUrl | null)` after every stroke and on clear. */
export function signaturePad(canvasEl, onChange) {
  const context = canvasEl.getContext('2d');
  let drawing = false;
  let inked = false;
  let last = null;

  function setup() {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    const rect = canvasEl.getBoundingClientRect();
    const width = Math.max(1, Math.round(rect.width * ratio));
    const height = Math.max(1, Math.round(rect.height * ratio));
    if (canvasEl.width === width && canvasEl.height === height) return;
    const previous = inked ? canvasEl.toDataURL('image/png') : null;
    canvasEl.width = width; canvasEl.height = height;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    clearSurface();
    if (previous) load(previous);
  }

  function clearSurface() {
    context.save();
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvasEl.width, canvasEl.height);
    context.restore();
    context.lineWidth = 2.5; context.lineCap = 'round'; context.lineJoin = 'round'; context.strokeStyle = '#0d1b3e';
  }

  function point(event) {
    const rect = canvasEl.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  canvasEl.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    canvasEl.setPointerCapture(event.pointerId);
    drawing = true; last = point(event);
    context.beginPath(); context.arc(last.x, last.y, 1.2, 0, Math.PI * 2); context.fillStyle = '#0d1b3e'; context.fill();
  });
  canvasEl.addEventListener('pointermove', (event) => {
    if (!drawing) return;
    const now = point(event);
    context.beginPath(); context.moveTo(last.x, last.y); context.lineTo(now.x, now.y); context.stroke();
    last = now; inked = true;
  });
  const finish = () => {
    if (!drawing) return;
    drawing = false; inked = true;
    onChange(canvasEl.toDataURL('image/png'));
  };
  canvasEl.addEventListener('pointerup', finish);
  canvasEl.addEventListener('pointercancel', finish);

  function load(dataUrl) {
    const image = new Image();
    image.onload = () => {
      const rect = canvasEl.getBoundingClientRect();
      context.drawImage(image, 0, 0, rect.width, rect.height);
    };
    image.src = dataUrl;
    inked = true;
  }

  setup();
  new ResizeObserver(setup).observe(canvasEl);
  canvasEl.setAttribute('role', 'img');
  return {
    clear() { inked = false; setup(); clearSurface(); onChange(null); },
    show(dataUrl) { if (dataUrl) load(dataUrl); },
    label: gettext('Firma'),
  };
}
