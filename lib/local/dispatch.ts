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
 * many containers; here every route shares one process. A route that hashes passwords (routes.ts
 * `hashesPasswords`) runs at most STORE_LOCAL_HASHING_CONCURRENCY (default 2) requests at once, the
 * others waiting their turn before their budget starts, as an invocation waits for a container: so
 * a burst of checkLogins never freezes the other routes, nor spends its budgets waiting for CPU.
 */
const hashingSlots = new Map<string, { running: number; waiting: Array<() => void> }>();

async function inTurn<T>(route: RouteDefinition, work: () => Promise<T>): Promise<T> {
  if (!route.hashesPasswords) return work();
  const limit = Math.max(1, Number(process.env.STORE_LOCAL_HASHING_CONCURRENCY ?? 2));
  let slots = hashingSlots.get(route.name);
  if (!slots) hashingSlots.set(route.name, (slots = { running: 0, waiting: [] }));
  const held = slots;
  if (held.running >= limit) await new Promise<void>((resolve) => held.waiting.push(resolve));
  else held.running++;
  try {
    return await work();
  } finally {
    // The slot passes to the next request waiting, or is freed.
    const next = held.waiting.shift();
    if (next) next();
    else held.running--;
  }
}

/** The route's answer to a request (its handler also refuses oversized bodies), or the router's 404/405. */
export async function dispatch(request: LocalRequest): Promise<HttpResponse> {
  const url = new URL(request.url, 'http://localhost');
  const match = matchRoute(request.method, url.pathname);
  if (match instanceof HttpProblem) return problemResponse(match);
  const handler = await loadHandler(match.route);
  const response = await inTurn(match.route, () =>
    handler(toApiGatewayEvent(request, match.route, match.params), lambdaContext(match.route.name.replace('/', '-'))),
  );
  return asLambdaReturns(response, match.route);
}
