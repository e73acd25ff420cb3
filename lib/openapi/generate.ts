/** `npm run openapi`: writes lib/openapi/openapi.json from the route table and the handlers' schemas. */
import { present } from '../present.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { moduleOf, registry } from '../resources.js';
import { GRANTS, handlerFile, routes } from '../routes.js';
import { openApiDocument, type DocumentedHandler, type DocumentedRow } from './document.js';
import { loadSampleRequests } from '../local/sample-events.js';
import { grantsSection, problemsSection, routesSection, withSection } from './doc-sections.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const documentFile = path.join(root, 'lib/openapi/openapi.json');

export async function buildDocument(): Promise<Record<string, unknown>> {
  const handlers: DocumentedHandler[] = [];
  for (const route of routes) {
    const module = (await import(pathToFileURL(path.join(root, handlerFile(route))).href)) as { handler: DocumentedHandler };
    handlers.push({ route, schemas: module.handler.schemas });
  }
  // Each resource's loop row, exported by its row schema module under the name the registry gives it.
  const rows = new Map<string, DocumentedRow>();
  for (const resource of registry) {
    if (!('row' in resource) || !resource.row) continue;
    const module = (await import(pathToFileURL(path.join(root, `lib/${moduleOf(resource)}/row-schema.ts`)).href)) as Record<string, DocumentedRow['schema']>;
    rows.set(resource.folder, { name: resource.row, schema: present(module[resource.row], `${resource.row} in lib/${moduleOf(resource)}/row-schema.ts`) });
  }
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return openApiDocument(handlers, rows, await loadSampleRequests(), version);
}

/** The docs' generated sections, by file: docs/api.md's routes and problems, docs/api-keys.md's grants. */
export const generatedSections = () =>
  new Map([
    ['docs/api.md', [routesSection(routes), problemsSection()]],
    ['docs/api-keys.md', [grantsSection(routes, GRANTS)]],
  ]);

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await writeFile(documentFile, `${JSON.stringify(await buildDocument(), null, 2)}\n`);
  for (const [doc, sections] of generatedSections()) {
    const file = path.join(root, doc);
    await writeFile(file, sections.reduce(withSection, await readFile(file, 'utf8')));
  }
  console.log(`wrote ${path.relative(root, documentFile)} and the generated sections of ${[...generatedSections().keys()].join(', ')}`);
}
