/**
 * Records written straight through the data layer, several to a transaction, as the import writes
 * them: a backlog of pending changes, fast, for the placer's tests and the feed's bench (products),
 * and a store filled up to its limit (tax rules).
 */
import { writeAtomically } from '../../lib/db/transactions.js';
import { stampWrite } from '../../lib/db/stamp.js';
import { products } from '../../lib/products/entity.js';
import { newProduct } from '../../lib/products/operations.js';
import { createSteps } from '../../lib/db/sharded-count.js';
import { taxRules } from '../../lib/tax-rules/entity.js';
import { countProductStep, newTaxRule, productsUsing, taxRulesVersion } from '../../lib/tax-rules/index.js';

let made = 0;

/** Products, 20 to a transaction; their ids, by transaction (a transaction's changes share their moment). */
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
    await writeAtomically([...products.create(stampWrite(), ...batch), countProductStep(1, batch[0]!.id, batch.length, () => new Error('no tax rule 1'))]);
    batches.push(batch.map((product) => product.id));
  }
  return batches;
}

/**
 * Tax rules as a create writes them (the rule, its summary, its change, its 16 product-count shards,
 * the store's count of rules and the rules' version), four to a transaction: a store filled to near
 * its limit in seconds, where a thousand creates one after another take minutes.
 */
export async function taxRulesWrittenDirectly(count: number): Promise<void> {
  for (let written = 0; written < count; written += 4) {
    const now = new Date().toISOString();
    const ids = await Promise.all(Array.from({ length: Math.min(4, count - written) }, () => taxRules.allocateId()));
    const rules = ids.map((id) => newTaxRule({ country: [64], tax: [1], i18n: [{ locale: 'en_US', title: `Rule ${id}` }] }, { id, createdAt: now, updatedAt: now }));
    await writeAtomically([...taxRules.create(stampWrite(), ...rules), ...rules.flatMap((rule) => createSteps(productsUsing(rule.id))), taxRulesVersion.bump()]);
  }
}
