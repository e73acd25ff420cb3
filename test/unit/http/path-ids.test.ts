/** lib/http/path-ids.ts `pathIds`: a path id that is no positive integer is an unknown path (404), before the key is looked at. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathIds } from '../../../lib/http/path-ids.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

const outcome = (entityId: string) => outcomeOf(pathIds(), httpRequest({ pathParameters: { entityId } }));

describe('pathIds', () => {
  it('lets positive integers through and answers anything else as a 404', async () => {
    expect(await outcome('7')).toBe('passed');
    expect(await outcome('9007199254740991')).toBe('passed');
    for (const id of ['0', '-1', '1.5', '1e3', 'abc', '', '9007199254740992', ' 7']) expect(await outcome(id), id).toMatchObject({ status: 404 });
    expect(await outcomeOf(pathIds(), httpRequest())).toBe('passed');
  });

  it('passes exactly the ids that are safe positive integers, whatever the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.bigInt({ min: -10n, max: 2n ** 60n }).map(String)), async (text) => {
        const safe = /^\d+$/.test(text) && BigInt(text) >= 1n && BigInt(text) <= BigInt(Number.MAX_SAFE_INTEGER) && text.length <= 16;
        expect((await outcome(text)) === 'passed', text).toBe(safe);
      }),
      { numRuns: 200 },
    );
  });
});
