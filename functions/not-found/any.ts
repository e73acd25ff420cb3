import { defineOpenHandler } from '../../lib/http/open-handler.js';
import { notFoundOrNotAllowed } from '../../lib/http/router.js';

/** The deployed API's `$default` route: whatever API Gateway could not route gets the local router's 404/405. */
export const handler = defineOpenHandler('not-found/any', async ({ method, path }) => {
  throw notFoundOrNotAllowed(method, path);
});
