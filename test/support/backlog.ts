/**
 * Products written straight through the data layer, 20 to a transaction, as the import writes them:
 * a backlog of pending changes, fast, for the placer's tests and the feed's bench. Their ids, by
 * transaction (a transaction's changes share their moment).
 */
import { writeAtomically } from '../../lib/db/transactions.js';
import { products } from '../../lib/products/entity.js';
import { newProduct } from '../../lib/products/operations.js';
import { countProductStep } from '../../lib/tax-rules/operations.js';

let made = 0;

export async function productsWrittenDirectly(count: number): Promise<number[][]> {
  const batches: number[][] = [];
  for (let written = 0; written < count; written += 20) {
    const now = new Date().toISOString();
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - written) }, async () =>
        newProduct({ ref: `BACKLOG-${process.pid}-${Date.now()}-${++made}`, price: 1n, weight: 0n, currency: 1, tax_rule: 1, default_category: 0 } as never, {
          id: await products.allocateId(),
          taxRuleId: 1,
          i18n: { en_US: { title: 'Backlog' } },
          createdAt: now,
          updatedAt: now,
        }),
      ),
    );
    await writeAtomically([...products.create(...batch), countProductStep(1, batch[0]!.id, batch.length, () => new Error('no tax rule 1'))]);
    batches.push(batch.map((product) => product.id));
  }
  return batches;
}
