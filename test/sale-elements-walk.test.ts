/**
 * The walk of every sale element (what the import's `--delete-missing` and the migrations read)
 * meets each one once and asks DynamoDB for a few products' lists at a time: a page of products holds
 * about a thousand, and asking for all their lists at once queued them past the client's time-out.
 */
import { expect, it } from 'vitest';
import { db } from '../lib/db/client.js';
import { inTurns } from '../lib/in-turns.js';
import { saleElements } from '../lib/products/sale-elements.js';
import { get, post } from './support/api.js';
import { productInput } from './support/fixtures.js';

/** Products made by two batches: 120, about 15 in each of the list's 8 shards (a page of the walk). */
async function manyProducts(): Promise<number[]> {
  const ids: number[] = [];
  for (let batch = 0; batch < 2; batch++) {
    const answer = await post('/api/products/batch', { rows: Array.from({ length: 60 }, () => ({ op: 'create', ...productInput() })) });
    expect(answer.status).toBe(200);
    for (const row of answer.body as Array<{ STATUS: number; ID: number }>) {
      expect(row.STATUS).toBe(201);
      ids.push(row.ID);
    }
  }
  return ids;
}

it('walks every sale element once, at most 8 of their products read at a time', async () => {
  const products = await manyProducts();
  const variant = await post('/api/pse', { pse: [{ product_id: products[0], reference: `WALK-${products[0]}`, currency_id: 1, price: 3 }] });
  expect(variant.status).toBe(201);
  // Each product's sale elements as the API lists them, a few products at a time (120 at once ran past the budget on a loaded machine).
  const lists = await inTurns(products, 8, async (id) => {
    const answer = await get(`/api/pse/product/${id}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body as Array<{ ID: number }>;
  });
  const expected = lists.flat().map((element) => element.ID);

  let inFlight = 0;
  let most = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      most = Math.max(most, ++inFlight);
      try {
        return await next(args);
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name: 'countInFlight' },
  );
  const walked: number[] = [];
  try {
    for await (const page of saleElements.pages()) walked.push(...page.map((element) => element.id));
  } finally {
    db().middlewareStack.remove('countInFlight');
  }

  expect(walked.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
  expect(expected).toHaveLength(121);
  expect(most).toBeLessThanOrEqual(8);
});
