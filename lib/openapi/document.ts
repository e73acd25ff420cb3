/**
 * The OpenAPI 3.1 document of the API, built from the route table and the input schemas each handler
 * declares (`defineHandler` keeps them on the handler). Build-time only: the document is generated
 * into openapi.json (`npm run openapi`), which the `GET /api/openapi.json` route serves as it is.
 */
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { RouteDefinition } from '../routes.js';
import { JSON_SCHEMA_KEY } from '../validation.js';

type Schema = v.GenericSchema<unknown, unknown>;
type JsonObject = Record<string, unknown>;

export interface DocumentedHandler {
  route: RouteDefinition;
  schemas: { body?: Schema; query?: Schema };
}

// Checks (such as "is a known country id") have no JSON Schema form: they are left out.
const conversion: ConversionConfig = { errorMode: 'ignore' };

/**
 * Puts the JSON Schema a field carries in its metadata (lib/validation.ts) in place of the converted
 * union, keeping the constraints piped after it (such as `limit`'s maximum of 100).
 */
function useDocumentedSchemas(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(useDocumentedSchemas);
  if (typeof node !== 'object' || node === null) return node;
  const { [JSON_SCHEMA_KEY]: documented, anyOf, ...rest } = node as JsonObject;
  if (documented) return { ...(documented as JsonObject), ...rest };
  return Object.fromEntries(Object.entries({ ...(anyOf ? { anyOf } : {}), ...rest }).map(([key, value]) => [key, useDocumentedSchemas(value)]));
}

const convert = (schema: Schema): JsonObject => {
  const { $schema: _, ...json } = useDocumentedSchemas(toJsonSchema(schema, conversion)) as JsonObject;
  return json;
};

const problem = { $ref: '#/components/responses/Problem' };

function operation({ route, schemas }: DocumentedHandler): JsonObject {
  const parameters: JsonObject[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  }));
  if (schemas.query) {
    const query = convert(schemas.query) as { properties?: Record<string, JsonObject> };
    for (const [name, schema] of Object.entries(query.properties ?? {})) parameters.push({ name, in: 'query', required: false, schema });
  }
  if (route.permission) {
    parameters.push({
      name: 'sign',
      in: 'query',
      required: true,
      description: 'lowercase hex HMAC-SHA1 of the raw body (empty when none), keyed with the hex-decoded secure key',
      schema: { type: 'string', pattern: '^[0-9a-f]{40}$' },
    });
  }
  const isList = route.method === 'GET' && !route.path.includes('{');
  const success: JsonObject =
    route.status === 204
      ? { description: 'done, no body' }
      : route.name === 'health/get'
        ? { description: 'the API is up', content: { 'text/plain': { schema: { const: 'OK' } } } }
        : route.name === 'openapi/get'
          ? { description: 'this document', content: { 'application/json': { schema: { type: 'object' } } } }
          : {
              description: isList ? 'a page of loop rows' : 'one loop row',
              headers: isList
                ? {
                    'X-Total-Count': { description: 'rows in the unfiltered list', schema: { type: 'integer' } },
                    'X-Next-Cursor': { description: 'cursor of the next page', schema: { type: 'string' } },
                    Link: { description: '<next page>; rel="next"', schema: { type: 'string' } },
                  }
                : { ETag: { description: 'the row\'s VERSION, quoted', schema: { type: 'string' } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/LoopRows' } } },
            };
  return {
    operationId: route.name.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    tags: [route.permission?.resource ?? 'service'],
    ...(route.permission
      ? { security: [{ token: [] }], 'x-required-access': `${route.permission.resource}:${route.permission.access}` }
      : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(schemas.body ? { requestBody: { required: true, content: { 'application/json': { schema: convert(schemas.body) } } } } : {}),
    responses: { [route.status]: success, '4XX': problem, '5XX': problem },
  };
}

export function openApiDocument(handlers: readonly DocumentedHandler[], version: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const handler of handlers) {
    if (handler.route.method === 'ANY') continue;
    (paths[handler.route.path] ??= {})[handler.route.method.toLowerCase()] = operation(handler);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'store-api',
      version,
      description: 'Back-office API of an online store: customers, products and tax rules, answering with Thelia-style loop rows.',
    },
    paths,
    components: {
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <API_KEY>`; every protected request also carries `sign`' },
      },
      schemas: {
        LoopRows: {
          type: 'array',
          items: {
            type: 'object',
            description: 'UPPERCASE keys; ids and 0/1 flags are integers, money and weights decimal strings with six fraction digits',
            properties: { LOOP_COUNT: { type: 'integer', minimum: 1 }, LOOP_TOTAL: { type: 'integer', minimum: 1 } },
            required: ['LOOP_COUNT', 'LOOP_TOTAL'],
          },
        },
        Problem: {
          type: 'object',
          properties: {
            type: { const: 'about:blank' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            error: { type: 'string', description: "Thelia's error key: the same as detail" },
            errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] } },
          },
          required: ['type', 'title', 'status', 'detail', 'error'],
        },
      },
      responses: {
        Problem: { description: 'RFC 9457 problem details', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
}
