/** lib/http/exact-numbers.ts: the JSON body parsed, each number kept as written where a double would change it (docs/conventions.md). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactJsonBody } from '../../../lib/http/exact-numbers.js';
import { JsonNumberText } from '../../../lib/validation.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

const parsed = async (body: string): Promise<unknown> => {
  const request = httpRequest({ body, headers: { 'content-type': 'application/json' } });
  await exactJsonBody().before?.(request);
  return request.event.body;
};

describe('exactJsonBody', () => {
  it('keeps a number as its text when the double it becomes would print otherwise, and as a number when not', async () => {
    expect(await parsed('{"price":19.990,"hundred":1e2,"big":12345678901234567890,"five":5,"half":-0.5,"rows":[{"weight":0.10}]}')).toEqual({
      price: new JsonNumberText('19.990'),
      hundred: new JsonNumberText('1e2'),
      big: new JsonNumberText('12345678901234567890'),
      five: 5,
      half: -0.5,
      rows: [{ weight: new JsonNumberText('0.10') }],
    });
  });

  it('refuses a member named __proto__ (the parser guards the prototype), with a 400 naming the body', async () => {
    expect(await outcomeOf(exactJsonBody(), httpRequest({ body: '{"title":"x","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } }))).toEqual({
      status: 400,
      detail: 'body: has a member named __proto__, which no field takes',
      fields: ['body'],
    });
  });

  it('refuses what is not JSON with a 400 naming the body', async () => {
    expect(await outcomeOf(exactJsonBody(), httpRequest({ body: '{"price": 1,', headers: { 'content-type': 'application/json' } }))).toEqual({
      status: 400,
      detail: 'the body is not valid JSON',
      fields: ['body'],
    });
  });

  it('gives back every number a serializer writes as that number, and every other value as it was', async () => {
    await fc.assert(
      // Any JSON but what the parser refuses to guard the prototype: a member `__proto__` (above), a `constructor` holding a `prototype`.
      fc.asyncProperty(
        fc.jsonValue().filter((value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value))),
        async (value) => {
          expect(await parsed(JSON.stringify({ value }))).toEqual(JSON.parse(JSON.stringify({ value })));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps any decimal written with a trailing zero as its text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat({ max: 999_999 }), async (units, fraction) => {
        const text = `${units}.${fraction}0`;
        expect(await parsed(`{"n":${text}}`)).toEqual({ n: new JsonNumberText(text) });
      }),
      { numRuns: 200 },
    );
  });
});
