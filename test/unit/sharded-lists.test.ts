/**
 * The lists of every product and every customer are spread over shards of their index partitions
 * (lib/products/entity.ts, lib/customers/entity.ts): no one partition of an index takes every write
 * of the kind. Counted on the items as a write stores them, for 10 000 records of each.
 */
import { describe, expect, it } from 'vitest';
import { customers } from '../../lib/customers/entity.js';
import { table } from '../../lib/db/table.js';
import { products } from '../../lib/products/entity.js';

/** For each index a record is listed in, the share of the records that its busiest partition takes. */
function busiestShares(items: Record<string, unknown>[]): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const [index, { partitionKey }] of Object.entries(table.indexes)) {
    const counts = new Map<unknown, number>();
    for (const item of items) if (partitionKey in item) counts.set(item[partitionKey], (counts.get(item[partitionKey]) ?? 0) + 1);
    if (counts.size) shares[index] = Math.max(...counts.values()) / items.length;
  }
  return shares;
}

const now = '2026-11-29T00:00:00.000Z';
const product = (id: number) =>
  products.toItem({
    id,
    ref: `REF-${id}`,
    visible: true,
    price: '10.000000',
    currency: 1,
    weight: '0.000000',
    taxRuleId: 1,
    defaultCategory: 3,
    brandId: 0,
    i18n: { en_US: { title: 'T' } },
    version: 1,
    createdAt: now,
    updatedAt: now,
  } as never);
const customer = (id: number) => customers.toItem({ id, email: `c${id}@example.com`, lastname: 'L', firstname: 'F', title: 1, passwordHash: 'x', version: 1, createdAt: now, updatedAt: now } as never);

describe('a list of every record of a kind', () => {
  it('spreads products over 8 partitions of each of its indexes (about an eighth each), a category holding them all too', () => {
    // Every product here is in category 3: its list (GSI5) is as spread as the list of every product.
    const shares = busiestShares(Array.from({ length: 10_000 }, (_, i) => product(i + 1)));
    expect(Object.keys(shares).sort()).toEqual(['GSI1', 'GSI2', 'GSI3', 'GSI4', 'GSI5', 'GSI6', 'GSI7', 'GSI8']);
    for (const [index, share] of Object.entries(shares)) expect(share, index).toBeLessThan(0.14);
  });

  it('spreads customers over 4 partitions of each of its indexes (about a quarter each)', () => {
    const shares = busiestShares(Array.from({ length: 10_000 }, (_, i) => customer(i + 1)));
    expect(Object.keys(shares).sort()).toEqual(['GSI1', 'GSI2', 'GSI6']);
    for (const [index, share] of Object.entries(shares)) expect(share, index).toBeLessThan(0.27);
  });
});
