import { defineHandler } from '../../lib/http/handler.js';
import { notFoundOrNotAllowed } from '../../lib/http/router.js';

/** The deployed API's `$default` route: whatever API Gateway could not route gets the local router's 404/405. */
export const handler = defineHandler('not-found/any', {}, async ({ method, path }) => {
  throw notFoundOrNotAllowed(method, path);
});
