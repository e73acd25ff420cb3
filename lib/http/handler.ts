/**
 * Builds a route's Lambda handler: one middy stack, the same for every route, configured from the
 * route table. A handler module only declares its input schemas and calls one domain operation:
 *
 *   export const handler = defineHandler('tax-rules/create', { body: TaxRuleCreate, query: LangQuery },
 *     ({ body, query }) => createTaxRule(body, query.lang));
 *
 * Order of checks (CONTRACT §2): route → size (413) → key (401) → signature (412) → profile (403) →
 * idempotent replay → content type and JSON (415/400) → fields (400) → state (404/409/412).
 */
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import * as v from 'valibot';
import { routeByName, type RouteName } from '../routes.js';
import type { LoopResult } from '../db/loop.js';
import type { ApiKeyRecord } from '../api-keys/index.js';
import { authenticate } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { idempotency } from './idempotency.js';
import { utf8Body } from './utf8-body.js';
import { problemErrors } from './errors.js';
import { HttpProblem, invalidField, notFound } from './problem.js';
import { isPathId } from './router.js';
import { parseInputs } from './validation.js';
import { header, type HttpContext, type HttpEvent, type HttpMiddleware, type HttpResponse } from './types.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

export interface OperationInput<Body, Query> {
  body: Body;
  query: Query;
  /** Path ids, already checked to be positive integers. */
  params: Record<string, number>;
  /** The version from `If-Match`, when the client sent one (PUT and DELETE). */
  expectedVersion: number | undefined;
  apiKey: ApiKeyRecord | undefined;
  method: string;
  path: string;
}

/** Rows; or a document as it is (health check text, OpenAPI JSON); or nothing (204). */
export type OperationResult = LoopResult | { text: string; contentType?: string } | void;

type Output<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

/**
 * `If-Match: "<VERSION>"` (a weak W/ prefix and a bare number are accepted); `*` asks for no
 * particular version (RFC 9110); anything else is 412.
 */
function parseIfMatch(event: HttpEvent): number | undefined {
  const value = header(event, 'if-match');
  if (value === undefined || value.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(value);
  if (!match) throw new HttpProblem(412, 'If-Match must be the quoted VERSION of the record, e.g. "3"');
  return Number(match[1]);
}

/**
 * API Gateway routes `{entityId}` whatever it holds: ids that are not positive integers are an
 * unknown path (404), answered before the key is even looked at, as the local router does.
 */
const pathIds = (): HttpMiddleware => ({
  before: async ({ event }) => {
    for (const value of Object.values(event.pathParameters ?? {})) if (value === undefined || !isPathId(value)) throw notFound();
  },
});

function respond(status: number, result: OperationResult, single: boolean): HttpResponse {
  if (result === undefined || status === 204) return { statusCode: 204 };
  if ('text' in result) return { statusCode: status, headers: { 'Content-Type': result.contentType ?? 'text/plain; charset=utf-8' }, body: result.text };
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...result.headers };
  const version = single ? result.rows[0]?.VERSION : undefined;
  if (typeof version === 'number') headers.ETag = `"${version}"`;
  return { statusCode: status, headers, body: JSON.stringify(result.rows) };
}

export function defineHandler<BodySchema extends AnySchema | undefined = undefined, QuerySchema extends AnySchema | undefined = undefined>(
  name: RouteName,
  schemas: { body?: BodySchema; query?: QuerySchema },
  operation: (input: OperationInput<Output<BodySchema>, Output<QuerySchema>>) => Promise<OperationResult>,
) {
  const route = routeByName(name);
  const isList = route.method === 'GET' && !route.path.includes('{');

  const core = async (event: HttpEvent, context: HttpContext): Promise<HttpResponse> => {
    const params = Object.fromEntries(Object.entries(event.pathParameters ?? {}).map(([key, value]) => [key, Number(value)]));
    if (schemas.body && (typeof event.body !== 'object' || event.body === null || Array.isArray(event.body))) {
      throw invalidField('body', 'must be a JSON object');
    }
    const { body, query } = parseInputs({
      ...(schemas.body ? { body: { schema: schemas.body, value: event.body } } : {}),
      ...(schemas.query ? { query: { schema: schemas.query, value: event.queryStringParameters ?? {} } } : {}),
    });
    const result = await operation({
      body: body as Output<BodySchema>,
      query: query as Output<QuerySchema>,
      params,
      expectedVersion: route.method === 'PUT' || route.method === 'DELETE' ? parseIfMatch(event) : undefined,
      apiKey: context.apiKey,
      method: event.requestContext.http.method,
      path: event.rawPath,
    });
    return respond(route.status, result, !isList);
  };

  const handler = middy<HttpEvent, HttpResponse, Error, HttpContext>(core).use(problemErrors()).use(pathIds());
  // The catch-all answers 404/405 first, whatever the body (CONTRACT §2: route before size).
  if (route.method !== 'ANY') handler.use(bodyLimit()).use(authenticate(route));
  if (route.method === 'POST') handler.use(idempotency());
  if (route.body) handler.use(utf8Body()).use(httpJsonBodyParser());
  // The route and schemas travel with the handler: the OpenAPI document is built from them.
  return Object.assign(handler, { route, schemas });
}
