import { HttpProblem } from './problem.js';
import { rawBody, type HttpMiddleware } from './types.js';

/** Bodies over 64 KiB are refused before anything reads them (docs/conventions.md). */
export const MAX_BODY_BYTES = 64 * 1024;

export const bodyLimit = (): HttpMiddleware => ({
  before: async ({ event }) => {
    if (rawBody(event).length > MAX_BODY_BYTES) throw new HttpProblem(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
  },
});
