/**
 * Batches that cannot lie (docs/batches-and-client.md, docs/conventions.md), as a red team probed them: an Idempotency-Key's rows
 * belong to the request they were made for; a keyed batch's answer is kept whatever its size; two
 * rows on one record are refused in every form before anything is written.
 */
import { randomInt } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InternalServerError } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { db } from '../lib/db/client.js';
import { currentScope } from '../lib/db/scope.js';
import { get, post, problemFields, superadminKey, tableSnapshot } from './support/api.js';
import { createCategory, createCustomer, createProduct, customerInput, productInput, uniqueRef } from './support/fixtures.js';

const batch = (resource: string, rows: unknown[], options: Parameters<typeof post>[2] & { atomic?: boolean } = {}) =>
  post(`/api/${resource}/batch`, { rows, ...(options.atomic ? { atomic: true } : {}) }, options);
const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
/** The table without the id counters a refused batch may move (as a refused create does). */
const withoutCounters = (items: Record<string, unknown>[]) => items.filter((item) => !String(item.pk).startsWith('COUNTER#'));

let faults: ReturnType<typeof mockClient> | undefined;
afterEach(() => faults?.restore());

describe('an Idempotency-Key on a batch', () => {
  it('stays with the body it was first sent with after a 5xx: another body, or another route, is a 409; the first body, sent again, finishes what it began', async () => {
    const refs = [uniqueRef('FIRST'), uniqueRef('FIRST')];
    const first = refs.map((ref) => ({ op: 'create', ...productInput({ ref }) }));
    const key = keyed(`reused-${refs[0]}`);
    // The rows commit, then DynamoDB fails the write that records the answer: the batch answers 503.
    faults = mockClient(db());
    faults.send.callThrough();
    faults
      .on(UpdateCommand, { Key: { sk: 'RECORD' }, ExpressionAttributeValues: { ':done': 'DONE' } }, false)
      .rejects(new InternalServerError({ message: 'Internal server error', $metadata: { httpStatusCode: 500 } }));
    const cutOff = await batch('products', first, key);
    expect(cutOff.status).toBe(503);
    faults.restore();
    for (const ref of refs) expect((await get(`/api/products?ref=${ref}`)).body).toHaveLength(1);

    const otherRef = uniqueRef('OTHER');
    const another = await batch(
      'products',
      [
        { op: 'create', ...productInput({ ref: otherRef }) },
        { op: 'create', ...productInput() },
      ],
      key,
    );
    expect(another.status).toBe(409);
    expect(another.body.detail).toBe('this Idempotency-Key was used with another request');
    const elsewhere = await batch('categories', [{ op: 'create', title: 'Elsewhere', locale: 'en_US' }], key);
    expect(elsewhere.status).toBe(409);
    expect((await get(`/api/products?ref=${otherRef}`)).body).toEqual([]);

    const retried = await batch('products', first, key);
    expect(retried.status).toBe(200);
    expect(retried.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([201, 201]);
    for (const [k, ref] of refs.entries()) {
      const found = (await get(`/api/products?ref=${ref}`)).body;
      expect(found).toHaveLength(1);
      expect(retried.body[k]).toMatchObject({ ID: found[0].ID, ROW: { REF: ref } });
    }
  });

  it('keeps and replays an answer larger than one DynamoDB item, byte for byte', async () => {
    // Texts that do not compress: 25 rows of about 60 kB each, 1.5 MB of answer.
    const randomText = () => String.fromCodePoint(...Array.from({ length: 10_000 }, () => 0x4e00 + randomInt(20_000)));
    const categories = [];
    for (let i = 0; i < 25; i++) categories.push(await createCategory({ chapo: randomText(), description: randomText() }));
    const rows = categories.map((category) => ({ op: 'update', id: category.ID, visible: 1 }));
    const key = keyed(`large-${uniqueRef()}`);
    const first = await batch('categories', rows, key);
    expect(first.status).toBe(200);
    expect(first.text.length).toBeGreaterThan(400 * 1024);
    expect(first.body.every((r: { STATUS: number }) => r.STATUS === 201)).toBe(true);
    const again = await batch('categories', rows, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // Applied once: each category is at its second version.
    expect(again.body.map((r: { ROW: { VERSION: number } }) => r.ROW.VERSION)).toEqual(rows.map(() => 2));
  });
});

describe('a batch whose transactions DynamoDB holds past its time', () => {
  it('answers each held row 503 and keeps that answer under its key, instead of running out of time as a whole; the rows sent again apply', async () => {
    process.env.STORE_REQUEST_BUDGET_MS = '1500';
    try {
      const refs = [uniqueRef('HELD'), uniqueRef('HELD')];
      const rows = refs.map((ref) => ({ op: 'upsert', ...productInput({ ref }) }));
      const key = keyed(`held-${refs[0]}`);
      await superadminKey();
      // Held as a stalled DynamoDB holds a call: until the deadline it was sent under ends it.
      faults = mockClient(db());
      faults.send.callThrough();
      faults.on(TransactWriteCommand).callsFake(() => {
        const deadline = currentScope().deadline;
        return new Promise((_, reject) => {
          const abort = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
          if (!deadline || deadline.aborted) abort();
          else deadline.addEventListener('abort', abort);
        });
      });
      const held = await batch('products', rows, key);
      expect(held.status, held.text).toBe(200);
      expect(held.body.map((r: { STATUS: number; PROBLEM: { type: string } }) => [r.STATUS, r.PROBLEM.type])).toEqual(rows.map(() => [503, '/api/docs#problem-out-of-time']));
      const replayed = await batch('products', rows, key);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.text).toBe(held.text);
      faults.restore();
      for (const ref of refs) expect((await get(`/api/products?ref=${ref}`)).body).toEqual([]);

      const again = await batch('products', rows);
      expect(again.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([201, 201]);
    } finally {
      delete process.env.STORE_REQUEST_BUDGET_MS;
    }
  });
});

describe('two rows of a batch on one record', () => {
  it('are a 400 naming the later row, before anything is written, whether named by id, ref or email, in any case, atomic or not', async () => {
    const product = (await createProduct({ ref: uniqueRef('Mixed-Case') })).row;
    const customer = (await createCustomer()).row;
    const ref = uniqueRef('SAME');
    const email = customerInput().email;
    const cases: Array<[string, unknown[]]> = [
      [
        'products',
        [
          { op: 'update', id: product.ID, price: '3' },
          { op: 'upsert', ...productInput({ ref: product.REF.toUpperCase() }) },
        ],
      ],
      [
        'products',
        [
          { op: 'upsert', ...productInput({ ref: product.REF.toLowerCase() }) },
          { op: 'delete', id: product.ID },
        ],
      ],
      [
        'products',
        [
          { op: 'create', ...productInput({ ref }) },
          { op: 'upsert', ...productInput({ ref: ref.toLowerCase() }) },
        ],
      ],
      [
        'products',
        [
          { op: 'create', ...productInput({ ref }) },
          { op: 'create', ...productInput({ ref: ref.toLowerCase() }) },
        ],
      ],
      [
        'products',
        [
          { op: 'update', id: product.ID, ref },
          { op: 'create', ...productInput({ ref: ref.toUpperCase() }) },
        ],
      ],
      [
        'customers',
        [
          { op: 'create', ...customerInput({ email }) },
          { op: 'upsert', ...customerInput({ email: email.toUpperCase() }) },
        ],
      ],
      [
        'customers',
        [
          { op: 'update', id: customer.ID, city: 'Lille' },
          { op: 'upsert', ...customerInput({ email: customer.EMAIL.toUpperCase() }) },
        ],
      ],
    ];
    const before = await tableSnapshot();
    for (const [resource, rows] of cases) {
      for (const atomic of [false, true]) {
        const answer = await batch(resource, rows, { atomic });
        expect(answer.status, `${resource} ${JSON.stringify(rows).slice(0, 200)} atomic ${atomic}`).toBe(400);
        expect(problemFields(answer)).toEqual(['rows[1]']);
        expect(answer.body.errors[0].message).toContain('rows[0]');
      }
    }
    expect(withoutCounters(await tableSnapshot())).toEqual(withoutCounters(before));
  });
});
