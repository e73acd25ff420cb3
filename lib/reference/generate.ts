/**
 * `npm run reference`: writes lib/reference/data/runtime.json, the runtime projection of the reference
 * data, and lib/reference/data/rows/<kind>.json, the rows of each reference route.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceRows, runtimeProjection } from './records.js';

const data = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data');
export const runtimeFile = path.join(data, 'runtime.json');
export const rowsFile = (kind: string): string => path.join(data, 'rows', `${kind}.json`);

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await writeFile(runtimeFile, `${JSON.stringify(runtimeProjection())}\n`);
  console.log(`wrote ${runtimeFile}`);
  await mkdir(path.join(data, 'rows'), { recursive: true });
  for (const [kind, rows] of Object.entries(referenceRows())) {
    await writeFile(rowsFile(kind), `${JSON.stringify(rows)}\n`);
    console.log(`wrote ${rowsFile(kind)}`);
  }
}
