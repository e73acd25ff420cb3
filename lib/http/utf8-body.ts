import { isUtf8 } from 'node:buffer';
import { invalidField } from '../errors.js';
import { rawBody, type HttpMiddleware } from './types.js';

/**
 * JSON bodies must be UTF-8 (RFC 8259). Without this check invalid bytes would be decoded into
 * U+FFFD replacement characters and stored in place of what the client meant.
 */
export const utf8Body = (): HttpMiddleware => ({
  before: async ({ event }) => {
    if (!isUtf8(rawBody(event))) throw invalidField('body', 'is not valid UTF-8');
  },
});
