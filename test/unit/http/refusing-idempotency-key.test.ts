/** lib/http/idempotency.ts `refusingIdempotencyKey`: a create whose answer must not be replayed refuses the header, before it writes. */
import { describe, expect, it } from 'vitest';
import { refusingIdempotencyKey } from '../../../lib/http/idempotency.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

describe('refusingIdempotencyKey', () => {
  it('refuses a request that sends Idempotency-Key, in any case, with a 400 naming it and saying why; lets the others through', async () => {
    const why = 'is refused here: the answer holds a secret shown once';
    for (const name of ['Idempotency-Key', 'idempotency-key']) {
      expect(await outcomeOf(refusingIdempotencyKey(why), httpRequest({ headers: { [name]: 'k1' } })), name).toEqual({
        status: 400,
        detail: `Idempotency-Key: ${why}`,
        fields: ['Idempotency-Key'],
      });
    }
    expect(await outcomeOf(refusingIdempotencyKey(why), httpRequest())).toBe('passed');
  });
});
