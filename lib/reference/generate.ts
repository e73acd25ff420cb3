/** `npm run reference`: writes lib/reference/data/runtime.json, the runtime projection of the reference data. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeProjection } from './records.js';

export const runtimeFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data/runtime.json');

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await writeFile(runtimeFile, `${JSON.stringify(runtimeProjection())}\n`);
  console.log(`wrote ${runtimeFile}`);
}
