// Runs static/js/tablet/exif.js under node for tests/tablet/test_exif_js.py.
// Usage: node tests/js/exif_cli.mjs cases.json  (a list of JPEG paths) -> each file's EXIF position (or null), as JSON.
import { readFile } from 'node:fs/promises';
import { exifPosition, readExifPosition } from '../../static/js/tablet/exif.js';

const paths = JSON.parse(await readFile(process.argv[2], 'utf8'));
const found = [];
for (const path of paths) {
  const bytes = await readFile(path);
  const head = await exifPosition(new Blob([bytes]));  // the first HEAD_BYTES only, as the tablet reads a File
  const whole = readExifPosition(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  found.push({ head, whole });
}
process.stdout.write(JSON.stringify(found));
