/** lib/http/utf8-body.ts: a JSON body is UTF-8 (RFC 8259), never decoded into U+FFFD in place of what was sent. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Body } from '../../../lib/http/utf8-body.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

describe('utf8Body', () => {
  it('refuses bytes that are not UTF-8 with a 400 naming the body, and lets UTF-8 through', async () => {
    expect(await outcomeOf(utf8Body(), httpRequest({ body: Buffer.from([0x7b, 0xc3, 0x28, 0x7d]) }))).toEqual({ status: 400, detail: 'body: is not valid UTF-8', fields: ['body'] });
    expect(await outcomeOf(utf8Body(), httpRequest({ body: Buffer.from('{"title":"Crème brûlée 🍮"}') }))).toBe('passed');
    expect(await outcomeOf(utf8Body(), httpRequest())).toBe('passed');
  });

  it('lets any text through, as UTF-8, and refuses it with a byte no UTF-8 sequence holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), fc.nat(), async (text, at) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(await outcomeOf(utf8Body(), httpRequest({ body: bytes }))).toBe('passed');
        const position = bytes.length === 0 ? 0 : at % bytes.length;
        const broken = Buffer.concat([bytes.subarray(0, position), Buffer.from([0xff]), bytes.subarray(position)]);
        expect(await outcomeOf(utf8Body(), httpRequest({ body: broken }))).toMatchObject({ status: 400, fields: ['body'] });
      }),
      { numRuns: 200 },
    );
  });
});
