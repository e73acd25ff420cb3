import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.js';
import { buildDocument, documentFile } from '../lib/openapi/generate.js';
import { get } from './support/api.js';

type Operation = { responses: Record<string, unknown>; security: unknown[]; 'x-required-access'?: string; requestBody?: any };

describe('GET /api/openapi.json', () => {
  it('serves the document without a key', async () => {
    const response = await get('/api/openapi.json', { as: null });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body.openapi).toBe('3.1.0');
  });

  it('is up to date with the route table and the handlers (npm run openapi)', async () => {
    expect(JSON.parse(await readFile(documentFile, 'utf8'))).toEqual(await buildDocument());
  });

  it('documents every route with its method, success status and access', async () => {
    const document = (await buildDocument()) as { paths: Record<string, Record<string, Operation>> };
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.filter((r) => r.method !== 'ANY').map((r) => `${r.method} ${r.path}`).sort());
    for (const route of routes.filter((r) => r.method !== 'ANY')) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      expect(Object.keys(operation.responses)).toContain(String(route.status));
      expect(operation['x-required-access']).toBe(route.permission ? `${route.permission.resource}:${route.permission.access}` : undefined);
      expect(operation.requestBody !== undefined).toBe(route.body);
    }
  });

  it('describes bodies from the validation schemas: required fields, closed objects', async () => {
    const document = (await buildDocument()) as { paths: Record<string, Record<string, Operation>> };
    const schema = document.paths['/api/customers']!.post!.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['email', 'password', 'lang_id', 'country', 'zipcode']));
    expect(schema.required).not.toContain('address2');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.title).toMatchObject({ type: 'integer', minimum: 1 });
  });
});
