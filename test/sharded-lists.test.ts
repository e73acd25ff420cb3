/**
 * A sharded list's pages (lib/db/entity-lists.ts) against DynamoDB Local, with records chosen so
 * that most of every page comes from one shard: that shard is read again and again while the others
 * run out, and the pages must still be the list's order, by position and by offset, either way, and
 * within a range.
 */
import { describe, expect, it } from 'vitest';
import { shardOf } from '../lib/db/keys.js';
import type { Page } from '../lib/db/page.js';
import { writeAtomically } from '../lib/db/transactions.js';
import { stampWrite } from '../lib/db/stamp.js';
import { products } from '../lib/products/entity.js';
import { newProduct } from '../lib/products/operations.js';
import { countProductStep } from '../lib/tax-rules/index.js';

/** `count` ids from `from` on whose shard of 8 is (or is not) `shard`. */
function ids(count: number, from: number, inShard: boolean): number[] {
  const found: number[] = [];
  for (let id = from; found.length < count; id++) if ((shardOf(String(id), 8) === 0) === inShard) found.push(id);
  return found;
}

const made = [...ids(30, 500_000, true), ...ids(8, 500_000, false)];
// Refs in another order than the ids: ref order interleaves the shards otherwise.
const refOf = (id: number) => `SHARD-${String((id * 7919) % 1000).padStart(4, '0')}-${id}`;
const stamp = (id: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, id % 50)).toISOString();

type Product = (typeof products)['fromItem'] extends (item: never) => infer P ? P : never;

async function writeProducts(): Promise<void> {
  for (let i = 0; i < made.length; i += 10) {
    const batch = made.slice(i, i + 10).map((id) =>
      newProduct({ ref: refOf(id), price: 1n, weight: 0n, currency: 1, tax_rule: 1, default_category: 0 } as never, {
        id,
        taxRuleId: 1,
        i18n: { en_US: { title: 'Sharded' } },
        createdAt: stamp(id),
        updatedAt: stamp(id),
      }),
    );
    await writeAtomically([...products.create(stampWrite(), ...batch), countProductStep(1, batch[0]!.id, batch.length, () => new Error('no tax rule 1'))]);
  }
}

/** Every page of 3 of a list, following each page's position. */
async function byPosition(list: 'all' | 'byUpdate', order: string, reverse: boolean, from?: string): Promise<number[]> {
  const seen: number[] = [];
  let after: unknown;
  for (;;) {
    const page: Page<Product> = await products.list(list, { order, reverse, ...(from ? { from } : {}) }, { limit: 3, offset: 0, ...(after ? { after } : {}) });
    seen.push(...page.items.map((p) => p.id));
    if (!page.next) return seen;
    after = page.next;
  }
}

describe('a sharded list whose pages come mostly from one shard', () => {
  it('pages in order by position and by offset, either way, by id, by ref and within a range of updates', async () => {
    await writeProducts();
    const byId = [...made].sort((a, b) => a - b);
    const byRef = [...made].sort((a, b) => (refOf(a) < refOf(b) ? -1 : 1));
    const sinceStamp = stamp(20);
    const byUpdateSince = made.filter((id) => stamp(id) >= sinceStamp).sort((a, b) => (stamp(a) === stamp(b) ? a - b : stamp(a) < stamp(b) ? -1 : 1));
    expect(await byPosition('all', 'id', false)).toEqual(byId);
    expect(await byPosition('all', 'id', true)).toEqual([...byId].reverse());
    expect(await byPosition('all', 'ref', false)).toEqual(byRef);
    expect(await byPosition('all', 'ref', true)).toEqual([...byRef].reverse());
    expect(await byPosition('byUpdate', 'updated', false, sinceStamp)).toEqual(byUpdateSince);
    expect(await byPosition('byUpdate', 'updated', true, sinceStamp)).toEqual([...byUpdateSince].reverse());
    for (const offset of [0, 5, 17, 33]) {
      const page = await products.list('all', { order: 'id', reverse: false }, { limit: 10, offset });
      expect(
        page.items.map((p) => p.id),
        `offset ${offset}`,
      ).toEqual(byId.slice(offset, offset + 10));
      expect(page.total).toBe(made.length);
    }
  });
});
