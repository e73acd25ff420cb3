/**
 * The one middy stack of every protected route, single or batch, around the route's core (docs/conventions.md's order of checks): route → size (413) → key (401) → signature (412) → quota (429) → admission
 * (the profile's access: 403; a batch's rows' units: 429) → idempotent replay → content type and JSON
 * (415/400); all within the request's time budget (budget.ts), logged once (request-log.ts). What
 * differs between routes is the route table's (`idempotent`, `refusesIdempotencyKey`, `body`) or
 * named here: how a route admits its caller, and what its Idempotency-Key replays.
 */
import middy from '@middy/core';
import type { RouteDefinition } from '../routes.js';
import { authenticate } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { withinBudget } from './budget.js';
import { problemErrors } from './errors.js';
import { exactJsonBody } from './exact-numbers.js';
import { answeringHead } from './head.js';
import { idempotency, refusingIdempotencyKey, type IdempotencyOptions } from './idempotency.js';
import { jsonRequest } from './json-request.js';
import { pathIds } from './path-ids.js';
import { quotaPerKey } from './quota.js';
import { logged } from './request-log.js';
import { responseHeaders } from './response-headers.js';
import type { HttpContext, HttpEvent, HttpMiddleware, HttpResponse } from './types.js';
import { utf8Body } from './utf8-body.js';

export interface StackOptions {
  /** What admits the caller once its quota is counted: the profile's access (`authorize`), a batch's charge for its rows. */
  admit: readonly HttpMiddleware[];
  /** What an idempotent route's Idempotency-Key replays and keeps (idempotency.ts). */
  idempotency?: IdempotencyOptions;
}

export function protectedStack(route: RouteDefinition, core: (event: HttpEvent, context: HttpContext) => Promise<HttpResponse>, options: StackOptions) {
  // middy takes a list: the stack in the order of its checks, the route's own parts where it has them.
  const handler = middy<HttpEvent, HttpResponse, Error, HttpContext>(core).use([
    responseHeaders(),
    problemErrors(),
    pathIds(),
    bodyLimit(),
    authenticate(),
    quotaPerKey(),
    ...options.admit,
    ...(route.idempotent ? [idempotency(options.idempotency)] : []),
    ...(route.refusesIdempotencyKey ? [refusingIdempotencyKey(route.refusesIdempotencyKey)] : []),
    ...(route.body ? [utf8Body(), jsonRequest(), exactJsonBody()] : []),
  ]);
  return logged(route, answeringHead(withinBudget(handler)));
}
