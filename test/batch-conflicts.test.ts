/**
 * Batches under DynamoDB's own transaction conflicts (docs/batches-and-client.md, docs/conventions.md): every request of this file
 * goes through the conflict-faithful proxy (lib/local/conflict-proxy.ts), as `STORE_LOCAL_CONFLICTS=1`
 * runs `npm start`. Upserts of shared refs from concurrent batches compete for the same records:
 * each row is retried, none answers a 409 that is not its own, and each ref ends as one product,
 * updated once by every other upsert of it. The budget here is the invocation's (30 s), not the
 * API's 10 s: DynamoDB Local commits one transaction at a time, so how many rows fit in 10 s is this
 * machine's speed (beside the suite's other files, some did not), which `npm run bench` measures.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startConflictProxy } from '../lib/local/conflict-proxy.js';
import { get, post } from './support/api.js';
import { productInput, uniqueRef } from './support/fixtures.js';

process.env.STORE_REQUEST_BUDGET_MS = '29000';
// Before the table is set up (test/support/table-per-file.ts): the API's client is made on first use.
const proxy = await startConflictProxy({ target: inject('dynamoEndpoint'), holdMs: 5 });
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
afterAll(() => proxy.close());

describe('concurrent batches of upserts over shared refs', () => {
  it('apply every upsert once, each created once and updated by the others, with no 5xx and no 409', async () => {
    const refs = Array.from({ length: 50 }, () => uniqueRef('SHARED'));
    // 8 batches of 25 upserts, each over its own half of the refs: each ref is in 4 batches.
    const batches = Array.from({ length: 8 }, (_, b) => refs.filter((_, r) => (r + b) % 2 === 0 || (r * 7 + b) % 8 === 0).slice(0, 25));
    const answers = await Promise.all(batches.map((batchRefs, b) => post('/api/products/batch', { rows: batchRefs.map((ref) => ({ op: 'upsert', ...productInput({ ref, price: String(b + 1) }) })) })));
    for (const answer of answers) expect(answer.status).toBe(200);
    const statuses = answers.flatMap((answer) =>
      answer.body.map((result: { STATUS: number; PROBLEM?: { detail: string } }) => (result.STATUS === 201 || result.STATUS === 204 ? result.STATUS : `${result.STATUS} ${result.PROBLEM?.detail}`)),
    );
    expect(statuses.filter((status) => typeof status !== 'number')).toEqual([]);
    // Each ref created once, by whichever upsert came first; the others updated it.
    expect(statuses.filter((status) => status === 201)).toHaveLength(new Set(batches.flat()).size);
    for (const ref of new Set(batches.flat())) {
      const found = (await get(`/api/products?ref=${ref}`)).body;
      expect(found, ref).toHaveLength(1);
      expect(found[0].VERSION).toBe(batches.filter((batchRefs) => batchRefs.includes(ref)).length);
    }
    expect(proxy.counts().cancelled + proxy.counts().refused).toBeGreaterThan(0);
  }, 180_000);
});

describe("one batch's packs", () => {
  it('never cancel each other: 100 creates counting into the same shards send the packs that share a shard in turn', async () => {
    const before = proxy.counts().cancelled;
    const answer = await post('/api/products/batch', { rows: Array.from({ length: 100 }, () => ({ op: 'create', ...productInput() })) });
    expect(answer.body.map((result: { STATUS: number }) => result.STATUS)).toEqual(Array.from({ length: 100 }, () => 201));
    // Sent at once, packs whose rows count into one shard met on it: 12 to 20 transactions cancelled a batch.
    expect(proxy.counts().cancelled - before).toBe(0);
  }, 180_000);
});
