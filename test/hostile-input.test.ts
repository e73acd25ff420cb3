/**
 * Hostile input, generated (fast-check, fixed seed so that a failure replays): for every write route,
 * 2 000 bodies and query strings of wrong types, huge strings, deep nesting, prototype keys, invalid
 * UTF-8, out-of-range numbers and duplicate keys. Every answer must be a 4xx problem+json, and the
 * table must be as it was. Every generated body is invalid somewhere (most carry an unknown field):
 * the validators still check every field, and a valid body would rightly change the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, superadminKey, tableSnapshot } from './support/api.js';
import { createCustomer, createProduct } from './support/fixtures.js';

const RUNS = 2_000;

const FIELDS = [
  'id',
  'title',
  'firstname',
  'lastname',
  'email',
  'password',
  'lang_id',
  'country',
  'zipcode',
  'city',
  'address1',
  'address2',
  'ref',
  'price',
  'currency',
  'tax_rule',
  'weight',
  'visible',
  'brand_id',
  'default_category',
  'locale',
  'chapo',
  'description',
  'tax',
  'i18n',
  'default',
];

const hostileNumber = fc.constantFrom('1e309', '-1e309', '-0', '1e-400', '9007199254740993', 'NaN', '0x10', '1.', '.5', '-1');
const nested = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);

/** Raw bodies, as bytes on the wire. */
const hostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  // Known fields with values of any type, plus one unknown field so that no body is ever valid.
  fc.dictionary(fc.constantFrom(...FIELDS), fc.anything({ maxDepth: 3 }), { maxKeys: 8 }).map((o) => JSON.stringify({ ...o, unexpected: true })),
  // Any JSON at all.
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  // Huge strings in known fields.
  fc.tuple(fc.constantFrom(...FIELDS), fc.string({ minLength: 256, maxLength: 5_000 })).map(([field, text]) => JSON.stringify({ [field]: text, unexpected: 1 })),
  // Deep nesting.
  fc.integer({ min: 50, max: 5_000 }).map((depth) => nested(depth, '[', ']')),
  fc.integer({ min: 50, max: 2_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  // Prototype keys.
  fc.constantFrom('__proto__', 'constructor', 'prototype').map((key) => `{"${key}": {"isAdmin": true, "polluted": 1}, "ref": "x"}`),
  // Numbers JSON.parse turns into Infinity, -0, rounding, or refuses. (-0 is a valid 0: hence the unknown field.)
  fc.tuple(fc.constantFrom(...FIELDS), hostileNumber).map(([field, number]) => `{"${field}": ${number}, "unexpected": 1}`),
  // Duplicate keys.
  fc.tuple(fc.constantFrom(...FIELDS), fc.jsonValue(), fc.jsonValue()).map(([field, a, b]) => `{"${field}": ${JSON.stringify(a)}, "${field}": ${JSON.stringify(b)}, "unexpected": 1}`),
  // Invalid UTF-8 and arbitrary bytes.
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Buffer.concat([Buffer.from('{"ref": "'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(bytes), Buffer.from('"}')])),
  fc.string({ maxLength: 200 }),
);

const hostileQuery: fc.Arbitrary<string> = fc
  .dictionary(
    fc.oneof(fc.constantFrom('limit', 'offset', 'order', 'cursor', 'lang', 'visible', 'ref', 'email'), fc.string({ maxLength: 10 })),
    fc.oneof(fc.string({ maxLength: 50 }), hostileNumber, fc.constant('')),
    { maxKeys: 4 },
  )
  .map((params) => new URLSearchParams(params).toString());

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', '') },
);

let productId = 0;
let customerId = 0;

beforeAll(async () => {
  await superadminKey();
  productId = (await createProduct()).row.ID;
  customerId = (await createCustomer()).row.ID;
});

const writeRoutes = () =>
  [
    ['POST', '/api/tax-rules'],
    ['PUT', '/api/tax-rules'],
    ['POST', '/api/customers'],
    ['PUT', '/api/customers'],
    ['POST', '/api/customers/checkLogin'],
    ['POST', '/api/products'],
    ['PUT', `/api/products/${productId}`],
  ] as const;

describe('hostile input on every write route', () => {
  it.each([0, 1, 2, 3, 4, 5, 6])(
    'write route #%i answers 4xx problem+json and changes nothing',
    async (index) => {
      const [method, path] = writeRoutes()[index]!;
      const before = await tableSnapshot();
      await fc.assert(
        fc.asyncProperty(hostileBody, hostileQuery, contentType, async (body, query, type) => {
          const response = await call(method, `${path}?${query}`, { body, headers: type ? { 'content-type': type } : {} });
          const where = `${method} ${path}?${query} ${String(body).slice(0, 120)} → ${response.status} ${response.text.slice(0, 200)}`;
          expect(response.status, where).toBeGreaterThanOrEqual(400);
          expect(response.status, where).toBeLessThan(500);
          expect(response.headers['content-type'], where).toBe('application/problem+json');
        }),
        { numRuns: RUNS, seed: 20261122 + index },
      );
      expect(await tableSnapshot()).toEqual(before);
      expect(customerId).toBeGreaterThan(0);
    },
    120_000,
  );
});
