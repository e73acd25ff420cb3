/**
 * Tooling: brings a table written by an earlier version to what the code now expects. Idempotent;
 * `npm start` runs it once (a marker says so), `npm run migrate` runs it on AWS.
 *
 * - Locks in the current identity form. A customer's email lock and a product's ref lock were keyed
 *   by the lower-case value; now by lib/identity.ts's form (NFKC and full case folding). Each record
 *   whose key differs (`straße`, `ﬁ`, `Σ`...) has its lock moved in one transaction, so no record
 *   becomes unreachable by its filter and no value is ever free twice. Two records that now read as
 *   one (`STRASSE` and `straße`) cannot both hold the value: the second keeps its former lock (its
 *   own form stays unique) and is reported, for a person to rename one.
 * - Tax-rule summaries (the titles a list sorts, entity.ts `collection.summary`) for rules written
 *   before lists read them.
 */
import { Conflict } from '../db/errors.js';
import { writeAtomically, type WriteStep } from '../db/transactions.js';
import { customers } from '../customers/entity.js';
import { products } from '../products/entity.js';
import { taxRules } from '../tax-rules/entity.js';

export interface Migration {
  locksMoved: number;
  summariesWritten: number;
  /** Records whose value another record holds in the new form: `customer 12: a customer already has this email`. */
  conflicts: string[];
}

type Relockable<R> = { name: string; readAll(): Promise<R[]>; relock(record: R): Promise<WriteStep[]> };

async function relockEvery<R extends { id: number }>(entity: Relockable<R>, migration: Migration): Promise<void> {
  for (const record of await entity.readAll()) {
    const steps = await entity.relock(record);
    if (!steps.length) continue;
    try {
      await writeAtomically(steps);
      migration.locksMoved++;
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      migration.conflicts.push(`${entity.name} ${record.id}: ${error.message}`);
    }
  }
}

async function summarizeTaxRules(migration: Migration): Promise<void> {
  const summarized = new Set((await taxRules.readSummaries()).map((item) => Number(item.id)));
  for (const rule of await taxRules.readAll()) {
    if (summarized.has(rule.id)) continue;
    await writeAtomically(taxRules.summarize(rule));
    migration.summariesWritten++;
  }
}

export async function migrate(): Promise<Migration> {
  const migration: Migration = { locksMoved: 0, summariesWritten: 0, conflicts: [] };
  await relockEvery(customers, migration);
  await relockEvery(products, migration);
  await summarizeTaxRules(migration);
  return migration;
}
