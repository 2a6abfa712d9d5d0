// A signature drawn with a finger or a stylus on a canvas; kept as a PNG data URL.
import { gettext } from '../i18n.js';

/** Make `canvasEl` a signature pad; `onChange(dataUrl | null)` after every stroke and on clear. */
export function signaturePad(canvasEl, onChange) {
  const context = canvasEl.getContext('2d');
  let drawing = false;
  let last = null;
  let size = null;  // the canvas's CSS box, from the ResizeObserver: nothing reads the layout at set-up
  let picture = null;  // the signature as last drawn or shown, drawn again after a resize

  /** Size the bitmap to the box the browser laid out (delivered after layout, so no forced one). */
  function resize(width, height) {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    const pixels = [Math.max(1, Math.round(width * ratio)), Math.max(1, Math.round(height * ratio))];
    if (size && canvasEl.width === pixels[0] && canvasEl.height === pixels[1]) return;
    if (size && drawing) picture = canvasEl.toDataURL('image/png');  // a stroke under way is kept too
    size = { width, height };
    [canvasEl.width, canvasEl.height] = pixels;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    clearSurface();
    if (picture) load(picture);
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
    last = now;
  });
  const finish = () => {
    if (!drawing) return;
    drawing = false;
    picture = canvasEl.toDataURL('image/png');
    onChange(picture);
  };
  canvasEl.addEventListener('pointerup', finish);
  canvasEl.addEventListener('pointercancel', finish);

  /** Draw a kept signature once the canvas has its size (the first resize draws it otherwise). */
  function load(dataUrl) {
    picture = dataUrl;
    if (!size) return;
    const image = new Image();
    image.onload = () => { if (picture === dataUrl) context.drawImage(image, 0, 0, size.width, size.height); };
    image.src = dataUrl;
  }

  new ResizeObserver(([entry]) => {
    const box = entry.borderBoxSize[0];
    resize(box.inlineSize, box.blockSize);
  }).observe(canvasEl);
  canvasEl.setAttribute('role', 'img');
  return {
    clear() { picture = null; clearSurface(); onChange(null); },
    show(dataUrl) { if (dataUrl) load(dataUrl); },
    label: gettext('Firma'),
  };
}
