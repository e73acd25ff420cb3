/** lib/http/body-limit.ts: a body over 64 KiB is refused before anything reads it (docs/conventions.md). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyLimit, MAX_BODY_BYTES } from '../../../lib/http/body-limit.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

describe('bodyLimit', () => {
  it('lets 64 KiB through and refuses one byte more with a 413, counting the bytes a base64 body decodes to', async () => {
    expect(await outcomeOf(bodyLimit(), httpRequest({ body: 'a'.repeat(MAX_BODY_BYTES) }))).toBe('passed');
    expect(await outcomeOf(bodyLimit(), httpRequest({ body: 'a'.repeat(MAX_BODY_BYTES + 1) }))).toEqual({ status: 413, detail: 'the body is larger than 65536 bytes', fields: [] });
    // Its base64 text is a third longer than the limit; its bytes are not.
    expect(await outcomeOf(bodyLimit(), httpRequest({ body: Buffer.alloc(MAX_BODY_BYTES, 1) }))).toBe('passed');
    // Counted in bytes, not characters: 'é' is two.
    expect(await outcomeOf(bodyLimit(), httpRequest({ body: 'é'.repeat(MAX_BODY_BYTES / 2 + 1) }))).toMatchObject({ status: 413 });
    expect(await outcomeOf(bodyLimit(), httpRequest())).toBe('passed');
  });

  it('refuses exactly the bodies over the limit, whatever their size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 * MAX_BODY_BYTES }), async (bytes) => {
        const outcome = await outcomeOf(bodyLimit(), httpRequest({ body: Buffer.alloc(bytes) }));
        expect(outcome === 'passed').toBe(bytes <= MAX_BODY_BYTES);
      }),
      { numRuns: 50 },
    );
  });
});
