/**
 * A request as middy hands it to a middleware (lib/http/): an API Gateway v2 event made of the parts
 * a test names, and a context, so that one middleware is tested on its own, as middy's own are.
 */
import type { ApiKeyRecord } from '../../lib/api-keys/index.js';
import { toProblem } from '../../lib/http/errors.js';
import type { HttpMiddleware, HttpRequest, HttpResponse } from '../../lib/http/types.js';

export interface RequestParts {
  body?: string | Buffer;
  headers?: Record<string, string>;
  apiKey?: Partial<ApiKeyRecord>;
  /** The query string's parameters, as API Gateway parses them. */
  query?: Record<string, string>;
  response?: HttpResponse;
  pathParameters?: Record<string, string>;
}

export function httpRequest({ body, headers = {}, apiKey, response, pathParameters, query }: RequestParts = {}): HttpRequest {
  const binary = Buffer.isBuffer(body);
  return {
    event: {
      version: '2.0',
      routeKey: 'POST /api/things',
      rawPath: '/api/things',
      rawQueryString: new URLSearchParams(query).toString(),
      ...(query ? { queryStringParameters: query } : {}),
      headers,
      requestContext: { http: { method: 'POST', path: '/api/things', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' } },
      isBase64Encoded: binary,
      ...(pathParameters ? { pathParameters } : {}),
      ...(body === undefined ? {} : { body: binary ? body.toString('base64') : body }),
    } as HttpRequest['event'],
    context: { awsRequestId: 'unit', getRemainingTimeInMillis: () => 10_000, ...(apiKey ? { apiKey } : {}) } as HttpRequest['context'],
    response,
    error: undefined,
    internal: {},
  };
}

/** What a middleware's `before` answers: `passed`, or the problem it throws as the error middleware would answer it. */
export async function outcomeOf(middleware: HttpMiddleware, request: HttpRequest): Promise<{ status: number; detail: string; fields: string[] } | 'passed'> {
  try {
    await middleware.before?.(request);
    return 'passed';
  } catch (error) {
    const problem = toProblem(error);
    return { status: problem.status, detail: problem.message, fields: (problem.errors ?? []).map((e) => e.field) };
  }
}
