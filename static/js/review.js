// The reviewer's countersignature on the report page (art. 221): the pad's drawing goes in the form as a data URL.
import { signaturePad } from './tablet/signature.js';

for (const form of document.querySelectorAll('.countersign-form')) {
  const field = form.querySelector('input[name="signature"]');
  const pad = signaturePad(form.querySelector('canvas.signature-pad'), (dataUrl) => { field.value = dataUrl || ''; });
  form.querySelector('.clear-signature').addEventListener('click', () => pad.clear());
}
