import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { MiddlewareObj, Request } from '@middy/core';
import type { ApiKeyRecord } from '../api-keys/index.js';
import type { Lease } from '../db/idempotency-store.js';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2;

/** What the middlewares learn about a request, for the ones after them and the operation. */
export interface HttpContext extends Context {
  apiKey?: ApiKeyRecord;
  /** The lease on this request's Idempotency-Key, when it sent one (idempotency.ts). */
  idempotencyLease?: Lease;
  /** Headers for the answer, whatever it turns out to be (response-headers.ts). */
  responseHeaders?: Record<string, string>;
}

export type HttpRequest = Request<HttpEvent, HttpResponse, Error, HttpContext>;
export type HttpMiddleware = MiddlewareObj<HttpEvent, HttpResponse, Error, HttpContext>;

/** Request header lookup; API Gateway lower-cases header names, local clients may not. */
export function header(event: HttpEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** The body exactly as received, as bytes (what the request signature covers). */
export function rawBody(event: HttpEvent): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}
