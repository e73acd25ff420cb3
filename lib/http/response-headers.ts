/**
 * Puts the headers middlewares gathered for the answer (`context.responseHeaders`: a quota's fields)
 * on the answer, whichever it is: used first, it runs after every other middleware, the error
 * middleware's problem+json included.
 */
import type { HttpMiddleware, HttpRequest } from './types.js';

const addGathered = async (request: HttpRequest): Promise<void> => {
  const gathered = request.context.responseHeaders;
  if (!gathered || !request.response) return;
  request.response = { ...request.response, headers: { ...request.response.headers, ...gathered } };
};

export const responseHeaders = (): HttpMiddleware => ({ after: addGathered, onError: addGathered });
