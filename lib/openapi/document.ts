/**
 * The OpenAPI 3.1 document of the API, built from the route table, the input schemas each handler
 * declares (`defineHandler` keeps them on the handler), each resource's row schema and the sample
 * requests of events/. Build-time only: the document is generated into openapi.json (`npm run
 * openapi`), which the `GET /api/openapi.json` route serves as it is.
 */
import { present } from '../present.js';
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { SampleRequest } from '../samples.js';
import { PROBLEM_KINDS, problemType, type ProblemKind } from '../http/problem-types.js';
import { PROBLEM_MEANINGS } from './problem-docs.js';
import { folderOfRoute } from '../resources.js';
import type { RouteDefinition } from '../routes.js';
import { DeliveryRow, ReplayRow } from '../webhooks/row-schema.js';
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

/** A resource's loop row: its name in the document and its schema (`lib/<folder>/row-schema.ts`). */
export interface DocumentedRow {
  name: string;
  schema: Schema;
}

/** Routes whose rows are not their resource's (`many`: several rows, though not a paged list). */
const ROUTE_ROWS: Partial<Record<string, { name: string; schema: Schema }>> = {
  'webhooks/deliveries': { name: 'DeliveryRow', schema: DeliveryRow },
  'webhooks/replay': { name: 'ReplayRow', schema: ReplayRow },
};

const ref = (path: string) => ({ $ref: `#/components/${path}` });

/** On every answer to a key with a quota (docs/api-keys.md). */
const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': ref('headers/RateLimit-Policy'), RateLimit: ref('headers/RateLimit') };

/** The problems a route may answer with, by status (docs/conventions.md), and where each is described. */
function problems(route: RouteDefinition, schemas: DocumentedHandler['schemas']): Record<string, JsonObject> {
  if (!route.permission) return route.method === 'ANY' ? { 404: ref('responses/Problem'), 405: ref('responses/MethodNotAllowed') } : { 413: ref('responses/Problem') };
  // 429: past the key's quota (any route), or a login's attempts (checkLogin).
  const statuses = new Set([401, 403, 412, 413, 429]);
  if (schemas.body || schemas.query) statuses.add(400);
  if (route.body) statuses.add(415);
  const isCheckLogin = route.name === 'customers/check-login';
  if (route.path.includes('{') || route.method === 'PUT' || isCheckLogin) statuses.add(404);
  if (route.method !== 'GET' && !isCheckLogin) statuses.add(409);
  // A feed's cursor past the changes' retention.
  if (route.followed) statuses.add(410);
  const special: Record<number, JsonObject> = { 401: ref('responses/Unauthorized'), 429: ref('responses/TooManyAttempts') };
  return {
    ...Object.fromEntries([...statuses].sort().map((status) => [status, special[status] ?? ref('responses/Problem')])),
    500: ref('responses/Problem'),
    503: ref('responses/Unavailable'),
  };
}

/** A batch's answer (docs/batches-and-client.md): one result per row, in order, with the row or the problem the single route would answer. */
const batchSuccess = (row: JsonObject): JsonObject => ({
  description: "one result per row, in the rows' order",
  headers: RATE_LIMIT_HEADERS,
  content: {
    'application/json': {
      schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            INDEX: { type: 'integer', minimum: 0, description: "the row's place in `rows`" },
            STATUS: { type: 'integer', description: 'what the single route would have answered for this row' },
            ID: { type: ['integer', 'null'], description: "the record's id (null for a create that failed)" },
            ROW: row,
            PROBLEM: ref('schemas/Problem'),
          },
          required: ['INDEX', 'STATUS', 'ID'],
        },
      },
    },
  },
});

function success(route: RouteDefinition, rows: ReadonlyMap<string, DocumentedRow>): JsonObject {
  if (route.status === 204) return { description: 'done, no body' };
  if (route.name === 'health/get') return { description: 'the API is up', content: { 'text/plain': { schema: { const: 'OK' } } } };
  if (route.name === 'openapi/get') return { description: 'this document', content: { 'application/json': { schema: { type: 'object' } } } };
  if (route.name === 'docs/get') return { description: 'this reference, as a page', content: { 'text/html': { schema: { type: 'string' } } } };
  // A route's rows are its resource's, named by the folder its handler is in (resources.ts).
  const row = ref(`schemas/${present(ROUTE_ROWS[route.name] ?? rows.get(folderOfRoute(route.name)), `the rows of ${route.name}`).name}`);
  if (route.name.endsWith('/batch')) return batchSuccess(row);
  const { many } = route;
  const headers: Record<string, JsonObject> = {
    ...(route.followed
      ? { 'X-Next-Cursor': ref('headers/X-Next-Cursor'), Link: ref('headers/Link') }
      : route.list
        ? { 'X-Total-Count': ref('headers/X-Total-Count'), 'X-Next-Cursor': ref('headers/X-Next-Cursor'), Link: ref('headers/Link') }
        : { ETag: ref('headers/ETag'), ...(route.idempotent ? { 'Idempotent-Replayed': ref('headers/Idempotent-Replayed') } : {}) }),
    ...RATE_LIMIT_HEADERS,
  };
  return {
    description: route.list ? 'a page of loop rows' : many ? 'loop rows' : 'one loop row',
    headers,
    content: { 'application/json': { schema: { type: 'array', items: row, ...(route.list || many ? {} : { minItems: 1, maxItems: 1 }) } } },
  };
}

function operation({ route, schemas }: DocumentedHandler, rows: ReadonlyMap<string, DocumentedRow>, samples: readonly SampleRequest[]): JsonObject {
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
  if (route.permission) parameters.push(ref('parameters/sign'));
  if (route.method === 'PUT' || route.method === 'DELETE') parameters.push(ref('parameters/If-Match'));
  if (route.idempotent) parameters.push(ref('parameters/Idempotency-Key'));
  const sample = samples.find((s) => s.route === route.name);
  return {
    operationId: route.name.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    tags: [route.permission?.resource ?? 'service'],
    ...(sample || route.refusesIdempotencyKey
      ? {
          description: [
            ...(sample ? [`Example: \`${route.method} ${sample.url}\`${sample.body ? ' with the body below' : ''}.`] : []),
            ...(route.refusesIdempotencyKey ? [`\`Idempotency-Key\` ${route.refusesIdempotencyKey} (400).`] : []),
          ].join(' '),
        }
      : {}),
    ...(route.permission ? { security: [{ token: [] }], 'x-required-access': `${route.permission.resource}:${route.permission.access}` } : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(schemas.body ? { requestBody: { required: true, content: { 'application/json': { schema: convert(schemas.body), ...(sample?.body ? { example: sample.body } : {}) } } } } : {}),
    responses: { [route.status]: success(route, rows), ...problems(route, schemas) },
  };
}

/** HEAD answers what GET would, status and headers, without a body (RFC 9110). */
function headOperation(get: JsonObject): JsonObject {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, JsonObject>).map(([status, response]) => [
      status,
      { description: response.description ? `${String(response.description)}, without the body` : 'as GET, without the body', ...(response.headers ? { headers: response.headers } : {}) },
    ]),
  );
  const { description: _, requestBody: __, ...rest } = get;
  return { ...rest, operationId: `${String(get.operationId)}Head`, summary: 'The GET answer, status and headers, without its body', responses };
}

const problemHeaders = (extra: Record<string, JsonObject>) => ({
  description: 'RFC 9457 problem details',
  headers: extra,
  content: { 'application/problem+json': { schema: ref('schemas/Problem') } },
});

/** The document, from the routes' handlers, their resources' rows by folder, and their samples (each operation's example). */
export function openApiDocument(handlers: readonly DocumentedHandler[], rows: ReadonlyMap<string, DocumentedRow>, samples: readonly SampleRequest[], version: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const handler of handlers) {
    if (handler.route.method === 'ANY') continue;
    const get = operation(handler, rows, samples);
    const path = (paths[handler.route.path] ??= {});
    path[handler.route.method.toLowerCase()] = get;
    if (handler.route.method === 'GET') path.head = headOperation(get);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'store-api',
      version,
      description:
        'Back-office API of an online store: customers, products and tax rules, answering with Thelia-style loop rows ' +
        '(UPPERCASE keys, ending with LOOP_COUNT and LOOP_TOTAL). Every error is application/problem+json.',
    },
    paths,
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`Authorization: Token <API_KEY>` (25 uppercase hex characters), and on every protected request the query parameter ' +
            '`sign`: the lowercase hex HMAC-SHA1 of the raw body (the empty string when there is none), keyed with the hex-decoded ' +
            'secure key (48 hex characters). Example: secure key `0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF` and an empty ' +
            'body give `sign=a851ea4129b3183a82121e12994c959116deef15`.',
        },
      },
      parameters: {
        sign: {
          name: 'sign',
          in: 'query',
          required: true,
          description: 'lowercase hex HMAC-SHA1 of the raw body (empty when none), keyed with the hex-decoded secure key',
          schema: { type: 'string', pattern: '^[0-9a-fA-F]{40}$' },
        },
        'If-Match': { name: 'If-Match', in: 'header', required: false, description: 'the VERSION the change is meant for, quoted ("3"), or *; a stale one is a 412', schema: { type: 'string' } },
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'makes a retry of the same request (method, path, query string, body) within 24 h answer as the first did, writing once',
          schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' },
        },
      },
      headers: {
        ETag: { description: "the row's VERSION, quoted", schema: { type: 'string', pattern: '^"\\d+"$' } },
        'X-Total-Count': { description: 'rows in the whole list (unfiltered lists only)', schema: { type: 'integer', minimum: 0 } },
        'X-Next-Cursor': { description: 'the cursor of the next page, when there is one', schema: { type: 'string' } },
        Link: { description: '`<next page>; rel="next"`, when there is one', schema: { type: 'string' } },
        'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Policy': {
          description: 'the API key\'s quota (IETF ratelimit-headers): `"default";q=<requests>;w=<seconds>`; only for a key with a quota',
          schema: { type: 'string', pattern: '^"default";q=\\d+;w=\\d+$' },
        },
        RateLimit: {
          description: 'what is left of the quota: `"default";r=<requests left>;t=<seconds until the window resets>`; only for a key with a quota',
          schema: { type: 'string', pattern: '^"default";r=\\d+;t=\\d+$' },
        },
        'Idempotent-Replayed': { description: '`true` when the answer is the recorded one of an earlier request with the same Idempotency-Key', schema: { const: 'true' } },
      },
      schemas: {
        ...Object.fromEntries([...rows.values(), ...Object.values(ROUTE_ROWS)].flatMap((row) => (row ? [[row.name, convert(row.schema)]] : []))),
        Problem: {
          type: 'object',
          properties: {
            type: {
              enum: (Object.keys(PROBLEM_KINDS) as ProblemKind[]).map(problemType),
              description: `What the problem is, one stable URI reference a kind (a client branches on it, not on \`detail\`):\n${(Object.entries(PROBLEM_KINDS) as Array<[ProblemKind, number]>)
                .map(([kind, status]) => `- <a id="problem-${kind}"></a>\`${problemType(kind)}\` (${status}): ${PROBLEM_MEANINGS[kind]}`)
                .join('\n')}`,
            },
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
        Problem: problemHeaders(RATE_LIMIT_HEADERS),
        Unauthorized: problemHeaders({ 'WWW-Authenticate': { description: '`Token`', schema: { const: 'Token' } } }),
        MethodNotAllowed: problemHeaders({ Allow: { description: 'the methods the path takes', schema: { type: 'string' } } }),
        TooManyAttempts: problemHeaders({ 'Retry-After': ref('headers/Retry-After'), ...RATE_LIMIT_HEADERS }),
        Unavailable: problemHeaders({ 'Retry-After': ref('headers/Retry-After'), ...RATE_LIMIT_HEADERS }),
      },
    },
  };
}
