/** `npm run openapi`: writes lib/openapi/openapi.json from the route table and the handlers' schemas. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { handlerFile, routes } from '../routes.js';
import { openApiDocument, type DocumentedHandler } from './document.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const documentFile = path.join(root, 'lib/openapi/openapi.json');

export async function buildDocument(): Promise<Record<string, unknown>> {
  const handlers: DocumentedHandler[] = [];
  for (const route of routes) {
    const module = (await import(pathToFileURL(path.join(root, handlerFile(route))).href)) as { handler: DocumentedHandler };
    handlers.push({ route, schemas: module.handler.schemas });
  }
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return openApiDocument(handlers, version);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await writeFile(documentFile, `${JSON.stringify(await buildDocument(), null, 2)}\n`);
  console.log(`wrote ${path.relative(root, documentFile)}`);
}
