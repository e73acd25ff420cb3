/**
 * Builds a protected route's Lambda handler on the one middy stack of every such route
 * (protected-stack.ts), configured from the route table (open routes: open-handler.ts). A handler module only declares its input schemas and calls one domain operation:
 *
 *   export const handler = defineHandler('tax-rules/create', { body: TaxRuleCreate, query: TaxRuleQuery },
 *     ({ body, query }) => createTaxRule(body, query.lang));
 *
 * Order of checks (docs/conventions.md): route → size (413) → key (401) → signature (412) → quota (429) → profile (403) →
 * idempotent replay → content type and JSON (415/400) → fields (400) → state (404/409/412); all of it
 * within the request's time budget (budget.ts).
 * Operations answer with a row, a page of rows, or nothing, or return the write that will: this
 * module commits it (with the step recording its answer under an Idempotency-Key) and turns each
 * answer into the response: loop rows with an ETag, or loop rows with the page's headers.
 */
import * as v from 'valibot';
import type { Page, PageRequest } from '../db/page.js';
import type { ApiKeyRecord } from '../api-keys/index.js';
import { actingAs } from '../db/stamp.js';
import type { Write } from '../db/write-plan.js';
import { invalidField } from '../errors.js';
import { JsonNumberText } from '../validation.js';
import type { Row } from '../row.js';
import { routeByName, type PathParams, type RouteDefinition, type RouteName } from '../routes.js';
import { authorize, callerOf } from './auth.js';
import { protectedStack } from './protected-stack.js';
import { decodeCursor } from './cursor.js';
import { outcomeRecorder } from './idempotency.js';
import { PAGING_PARAMETERS, PagingQuery } from './list-query.js';
import { loopBody, pageHeaders, toLoop } from './loop.js';
import { HttpProblem } from './problem.js';
import { header, type HttpContext, type HttpEvent, type HttpResponse } from './types.js';
import { parseInputs } from './validation.js';

type BodySchema = v.GenericSchema<unknown, unknown>;
type QuerySchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

export interface OperationInput<Name extends RouteName, Body, Query> {
  body: Body;
  query: Query;
  /** Path ids, already checked to be positive integers. */
  params: PathParams<Name>;
  /** What page of a list is asked for (lists only): limit, offset and the position after a cursor. */
  page: PageRequest;
  /** The version from `If-Match`, when the client sent one (PUT and DELETE). */
  expectedVersion: number | undefined;
  /** The caller's API key (never its secure key). */
  caller: ApiKeyRecord;
  /**
   * The position a cursor of the list the route takes cursors of (`cursorsOf`, unfiltered) holds, or
   * `now` where that list takes it; 400 when it is neither.
   */
  positionOf: (cursor: string) => Promise<unknown>;
}

/** A row; a page of rows (lists); nothing (204); or a write that answers one of those, which this module commits. */
// biome-ignore lint/suspicious/noConfusingVoidType: an operation that answers 204 returns nothing: `void`, as its async function's type says.
export type OperationAnswer = Row | readonly Row[] | Page<Row> | void;
export type OperationResult = OperationAnswer | Write<OperationAnswer>;

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

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

/** The query parameters that define a list as the client sent them, for its next page's link. */
function listParameters(event: HttpEvent): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && name !== 'sign' && !PAGING_PARAMETERS.has(name)) params.set(name, value);
  }
  return params;
}

/**
 * A write an operation returned, told apart by its shape: importing its class here would bundle the
 * write path into every route, the reads' included.
 */
const isWrite = (result: OperationResult): result is Write<OperationAnswer> => typeof (result as Partial<Write<unknown>> | undefined)?.commit === 'function';

const isPage = (result: Row | readonly Row[] | Page<Row>): result is Page<Row> => !Array.isArray(result) && Array.isArray((result as Page<Row>).items);

/** What a cursor is bound to: the list's route, and its order, filters and `lang` (everything but the paging itself). */
const cursorScope = (route: RouteName, listQuery: object): string => `${route}|${JSON.stringify(listQuery)}`;

/** One row, with its VERSION as the ETag; or the rows of a write of several records (docs/api.md's entries), in order. */
const rowResponse = (route: RouteDefinition, answer: Row | readonly Row[]): HttpResponse => {
  const rows = Array.isArray(answer) ? answer : [answer as Row];
  const [only] = rows;
  return {
    statusCode: route.status,
    headers: { 'Content-Type': 'application/json', ...(rows.length === 1 && typeof only?.VERSION === 'number' ? { ETag: `"${only.VERSION}"` } : {}) },
    body: JSON.stringify(toLoop(rows)),
  };
};

async function respond(route: RouteDefinition, result: OperationAnswer, event: HttpEvent, scope: string, page: PageRequest): Promise<HttpResponse> {
  if (result === undefined || route.status === 204) return { statusCode: 204 };
  if (isPage(result)) {
    const { page: answered, body } = loopBody(result);
    const headers = await pageHeaders(answered, { scope, path: event.rawPath, query: listParameters(event), limit: page.limit });
    return { statusCode: route.status, headers: { 'Content-Type': 'application/json', ...headers }, body };
  }
  return rowResponse(route, result);
}

export function defineHandler<Name extends RouteName, Body extends BodySchema | undefined = undefined, Query extends QuerySchema | undefined = undefined>(
  name: Name,
  /** Its input schemas; `cursorsOf`: the list whose cursors its body carries (a replay's), for `positionOf`. */
  schemas: { body?: Body; query?: Query; cursorsOf?: RouteName },
  operation: (input: OperationInput<Name, Output<Body>, Output<Query>>) => OperationResult | Promise<OperationResult>,
) {
  const route = routeByName(name);
  if (!route.permission) throw new Error(`${name} is an open route: use defineOpenHandler`);
  // A list's query also takes the paging parameters; the documented schema is the one validated.
  const query = route.list && schemas.query ? v.object({ ...PagingQuery.entries, ...schemas.query.entries }) : schemas.query;

  const core = async (event: HttpEvent, context: HttpContext): Promise<HttpResponse> => {
    const params = Object.fromEntries(Object.entries(event.pathParameters ?? {}).map(([key, value]) => [key, Number(value)]));
    if (schemas.body && (typeof event.body !== 'object' || event.body === null || Array.isArray(event.body) || (event.body as unknown) instanceof JsonNumberText)) {
      throw invalidField('body', 'must be a JSON object');
    }
    const parsed = parseInputs({
      ...(schemas.body ? { body: { schema: schemas.body, value: event.body } } : {}),
      // An empty parameter is as if absent (`?min_price=&max_price=`, as Thelia's forms send them).
      ...(query ? { query: { schema: query, value: Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter(([, value]) => value !== '')) } } : {}),
    });
    const { limit = 10, offset = 0, cursor, ...listQuery } = (parsed.query ?? {}) as { limit?: number; offset?: number; cursor?: string };
    const scope = cursorScope(name, listQuery);
    const fromNow = route.followed && cursor === 'now';
    const page: PageRequest = { limit, offset, ...(fromNow ? { fromNow } : cursor !== undefined ? { after: await decodeCursor(scope, cursor) } : {}) };
    const caller = callerOf(context);
    // Under an Idempotency-Key, a create's transaction records its row too.
    const lease = context.idempotencyLease;
    // The changes a write records name the key and the request (the request log's id).
    const result = await actingAs({ apiKey: caller.apiKey, requestId: context.awsRequestId }, async () => {
      const answer = await operation({
        body: parsed.body as Output<Body>,
        query: listQuery as Output<Query>,
        params: params as PathParams<Name>,
        page,
        expectedVersion: route.method === 'PUT' || route.method === 'DELETE' ? parseIfMatch(event) : undefined,
        caller,
        positionOf: (text) => {
          const list = schemas.cursorsOf;
          if (!list) throw new Error(`${name} takes no cursor of another list`);
          return text === 'now' && routeByName(list).followed ? Promise.resolve('now') : decodeCursor(cursorScope(list, {}), text);
        },
      });
      return isWrite(answer) ? answer.commit({ answer: lease && outcomeRecorder(lease) }) : answer;
    });
    return respond(route, result, event, scope, page);
  };

  const handler = protectedStack(route, core, { admit: [authorize(route.permission)], idempotency: { replay: (row) => rowResponse(route, row) } });
  // The route and schemas travel with the handler: the OpenAPI document is built from them.
  return Object.assign(handler, { route, schemas: { ...(schemas.body ? { body: schemas.body } : {}), ...(query ? { query } : {}) } });
}
