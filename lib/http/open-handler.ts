/**
 * Builds the handler of an open route (the health check, the API reference, the catch-all): no
 * key, no body, no input; it answers a document or a problem. It bundles none of the protected
 * routes' middlewares, so that these functions stay small.
 */
import middy from '@middy/core';
import { routeByName, type RouteName } from '../routes.js';
import { bodyLimit } from './body-limit.js';
import { problemErrors } from './errors.js';
import { answeringHead } from './head.js';
import { logged } from './request-log.js';
import type { HttpContext, HttpEvent, HttpResponse } from './types.js';

/** A document answered as it is: the health check's text, the OpenAPI JSON. */
export class Document {
  constructor(
    readonly text: string,
    readonly contentType = 'text/plain; charset=utf-8',
  ) {}
}

export function defineOpenHandler(name: RouteName, operation: (request: { method: string; path: string }) => Promise<Document>) {
  const route = routeByName(name);
  if (route.permission) throw new Error(`${name} is a protected route: use defineHandler`);
  const handler = middy<HttpEvent, HttpResponse, Error, HttpContext>(async (event: HttpEvent) => {
    const document = await operation({ method: event.requestContext.http.method, path: event.rawPath });
    return { statusCode: route.status, headers: { 'Content-Type': document.contentType }, body: document.text };
  }).use(problemErrors());
  // The catch-all answers 404/405 first, whatever the body (docs/conventions.md: route before size).
  if (route.method !== 'ANY') handler.use(bodyLimit());
  // The route travels with the handler: the OpenAPI document is built from it.
  return Object.assign(logged(route, answeringHead(handler)), { route, schemas: {} });
}
