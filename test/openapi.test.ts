import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.js';
import { buildDocument, documentFile } from '../lib/openapi/generate.js';
import { get } from './support/api.js';
import { undocumented } from './support/openapi-contract.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';

type Operation = { responses: Record<string, any>; security: unknown[]; 'x-required-access'?: string; requestBody?: any; description?: string };
type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, any>> };

const documented = routes.filter((r) => r.method !== 'ANY');

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

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(await buildDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route with its method, success status, access and an example', async () => {
    const document = (await buildDocument()) as Document;
    const listed = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    // HEAD beside every GET: the same answer without its body.
    expect(listed.sort()).toEqual(documented.flatMap((r) => [`${r.method} ${r.path}`, ...(r.method === 'GET' ? [`HEAD ${r.path}`] : [])]).sort());
    for (const route of documented) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      expect(Object.keys(operation.responses)).toContain(String(route.status));
      expect(operation['x-required-access']).toBe(route.permission ? `${route.permission.resource}:${route.permission.access}` : undefined);
      expect(operation.requestBody !== undefined).toBe(route.body);
      expect(operation.description, route.name).toMatch(/^Example: `/);
      if (route.body) expect(operation.requestBody.content['application/json'].example, route.name).toBeDefined();
      // Every protected route may answer these problems, each as problem+json.
      if (route.permission) for (const status of ['401', '403', '412', '503']) expect(Object.keys(operation.responses), `${route.name} ${status}`).toContain(status);
    }
  });

  it("describes each resource's loop row with every key of the contract, in order", async () => {
    const { components } = (await buildDocument()) as Document;
    expect(Object.keys(components.schemas!.CustomerRow.properties)).toEqual([...CONTRACT_ROW_KEYS.customer]);
    expect(Object.keys(components.schemas!.ProductRow.properties)).toEqual([...CONTRACT_ROW_KEYS.product]);
    expect(Object.keys(components.schemas!.TaxRuleRow.properties)).toEqual([...CONTRACT_ROW_KEYS.taxRule]);
    expect(components.schemas!.ProductRow.properties.PRICE).toMatchObject({ type: 'string', pattern: '^\\d+\\.\\d{6}$' });
    expect(components.schemas!.ProductRow.additionalProperties).toBe(false);
  });

  it('describes bodies from the validation schemas: required fields, closed objects', async () => {
    const document = (await buildDocument()) as Document;
    const schema = document.paths['/api/customers']!.post!.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['email', 'password', 'lang_id', 'country', 'zipcode']));
    expect(schema.required).not.toContain('address2');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.title).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('is what every answer of the suite is checked against: a wrong row, status or media type is caught', () => {
    expect(undocumented('GET', '/api/tax-rules/1', 200, 'application/json', [{ ID: 'one' }])).toMatch(/must/);
    expect(undocumented('GET', '/api/tax-rules/1', 200, 'application/json', [])).toMatch(/fewer than 1/);
    expect(undocumented('GET', '/api/tax-rules/1', 418, 'application/problem+json', {})).toMatch(/does not list/);
    expect(undocumented('GET', '/api/tax-rules/1', 404, 'text/html', '')).toMatch(/answered text\/html/);
    expect(undocumented('GET', '/api/tax-rules/1', 404, 'application/problem+json', { status: 404 })).toMatch(/must have required property/);
  });
});
