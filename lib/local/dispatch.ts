/**
 * Turns an HTTP request into the API Gateway HTTP API (v2) event that the deployed API would send,
 * and calls the very handler module the route's Lambda runs. The local server and the tests use it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { handlerFile, type RouteDefinition } from '../routes.js';
import { matchRoute } from '../http/router.js';
import { HttpProblem } from '../http/problem.js';
import { problemResponse } from '../http/errors.js';
import { LIMITS } from '../limits.js';
import { log } from '../log.js';
import { configuredBudgetMs } from '../http/budget.js';
import type { HttpEvent, HttpResponse } from '../http/types.js';

export interface LocalRequest {
  method: string;
  /** Path and query string, e.g. /api/tax-rules?limit=5 */
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  sourceIp?: string;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type LambdaHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;
const handlers = new Map<string, Promise<LambdaHandler>>();

function loadHandler(route: RouteDefinition): Promise<LambdaHandler> {
  let loaded = handlers.get(route.name);
  if (!loaded) {
    loaded = import(pathToFileURL(path.join(root, handlerFile(route))).href).then((m: { handler: LambdaHandler }) => m.handler);
    handlers.set(route.name, loaded);
  }
  return loaded;
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

export function toApiGatewayEvent(request: LocalRequest, route: RouteDefinition, params: Record<string, string>): HttpEvent {
  const url = new URL(request.url, 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const bytes = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const hasBody = bytes !== undefined && bytes.length > 0;
  const text = hasBody && isUtf8(bytes);
  const now = new Date();
  const routeKey = route.method === 'ANY' ? '$default' : `${route.method} ${route.path}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method.toUpperCase(),
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(hasBody ? { body: text ? bytes.toString('utf8') : bytes.toString('base64') } : {}),
    isBase64Encoded: hasBody && !text,
  };
}

/** API Gateway's limit for an HTTP API integration: the local server's invocations have as long. */
const INVOCATION_MS = 30_000;

function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + INVOCATION_MS;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The module that serves a route, as the route's Lambda would load it. */
export { loadHandler, lambdaContext };

/**
 * Lambda refuses to return an answer over 6 MB (the invocation's JSON as a whole), and API Gateway
 * then answers a bare 500: the local server does the same, so that tests see such an answer.
 */
export function asLambdaReturns(response: HttpResponse, route: RouteDefinition): HttpResponse {
  const bytes = Buffer.byteLength(JSON.stringify(response), 'utf8');
  if (bytes <= LIMITS.lambda.responseBytes) return response;
  log('error', 'answer larger than Lambda returns', { route: route.name, bytes, limit: LIMITS.lambda.responseBytes });
  return problemResponse(new HttpProblem(500, 'internal error'));
}

/**
 * On Lambda, each container serves one request at a time and a burst of password checks spreads over
 * many containers, up to the account's concurrency; past it, Lambda refuses the invocation at once.
 * Here every route shares one process. A route that hashes passwords (routes.ts `hashesPasswords`)
 * runs at most STORE_LOCAL_HASHING_CONCURRENCY (default 2) requests at once; the others wait their
 * turn, so that a burst never freezes the other routes nor spends its budgets waiting for CPU. A
 * request that could not start and finish within its budget (the queue ahead of it, at the route's
 * recent pace) is refused at once with a 503 + Retry-After, as a throttled invocation is; one still
 * waiting when its budget could no longer cover its run is refused then. So no answer comes after
 * the budget, and a client learns at once to come back.
 */
interface Turns {
  running: number;
  waiting: Array<{ start: () => void }>;
  /** How long a run of this route takes, lately (an exponential average). */
  runMs: number;
}

const turns = new Map<string, Turns>();
/** Until a run is measured: about a password check on this 2-core machine. */
const FIRST_RUN_ESTIMATE_MS = 250;

const refusedForNow = (retryAfterSeconds: number) =>
  problemResponse(
    new HttpProblem(503, 'too many requests of this route are running or waiting: retry later', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, kind: 'overloaded' }),
  );

async function inTurn(route: RouteDefinition, work: () => Promise<HttpResponse>): Promise<HttpResponse> {
  if (!route.deployment.hashesPasswords) return work();
  const limit = Math.max(1, Number(process.env.STORE_LOCAL_HASHING_CONCURRENCY ?? 2));
  const budgetMs = configuredBudgetMs();
  let held = turns.get(route.name);
  if (!held) turns.set(route.name, (held = { running: 0, waiting: [], runMs: FIRST_RUN_ESTIMATE_MS }));
  const state = held;
  if (state.running >= limit) {
    // Those ahead run `limit` at a time: this one starts after their rounds, and then runs its own.
    const rounds = Math.floor(state.waiting.length / limit) + 1;
    const startsInMs = rounds * state.runMs;
    if (startsInMs + state.runMs > budgetMs) return refusedForNow(startsInMs / 1000);
    const started = await new Promise<boolean>((resolve) => {
      const turn = {
        start: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        state.waiting.splice(state.waiting.indexOf(turn), 1);
        resolve(false);
      }, budgetMs - state.runMs);
      state.waiting.push(turn);
    });
    if (!started) return refusedForNow(state.runMs / 1000);
  } else state.running++;
  const began = performance.now();
  try {
    return await work();
  } finally {
    state.runMs = 0.8 * state.runMs + 0.2 * (performance.now() - began);
    // The slot passes to the next request waiting, or is freed.
    const next = state.waiting.shift();
    if (next) next.start();
    else state.running--;
  }
}

/** The route's answer to a request (its handler also refuses oversized bodies), or the router's 404/405. */
export async function dispatch(request: LocalRequest): Promise<HttpResponse> {
  const url = new URL(request.url, 'http://localhost');
  const match = matchRoute(request.method, url.pathname);
  if (match instanceof HttpProblem) return problemResponse(match);
  const handler = await loadHandler(match.route);
  const response = await inTurn(match.route, () => handler(toApiGatewayEvent(request, match.route, match.params), lambdaContext(match.route.name.replace('/', '-'))));
  return asLambdaReturns(response, match.route);
}
