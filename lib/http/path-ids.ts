/**
 * Path ids (docs/conventions.md): positive integers up to 2^53−1. API Gateway routes `{entityId}` whatever
 * it holds, so a protected route checks its own (`pathIds`), as the local router matches only
 * those. Its own module: the router compiles the whole route table when it loads, which no route's
 * function needs.
 */
import { notFound } from './problem.js';
import type { HttpMiddleware } from './types.js';

/** Whether a path segment is an id; anything else matches no route. */
export function isPathId(value: string): boolean {
  return /^\d+$/.test(value) && value.length <= 16 && Number(value) >= 1 && Number.isSafeInteger(Number(value));
}

/** Ids that are not positive integers are an unknown path (404), answered before the key is even looked at, as the local router does. */
export const pathIds = (): HttpMiddleware => ({
  before: async ({ event }) => {
    for (const value of Object.values(event.pathParameters ?? {})) if (value === undefined || !isPathId(value)) throw notFound();
  },
});
