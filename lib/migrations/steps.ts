/**
 * The migrations of the table (docs/deploying.md): numbered steps, each idempotent and expand-only (the
 * code of the release before keeps working on a migrated table), in the order they run. The runner
 * (run.ts) records each one that ran in the table; a deploy runs the pending ones before any traffic
 * shifts (functions/deploy/migrate.ts, a custom resource), and `npm start` and `npm run migrate` run
 * the same. A new step goes at the end of MIGRATIONS, with the next number; a step is never changed
 * once released (a table may have recorded it).
 *
 * - Locks in the current identity form. A customer's email lock and a product's ref lock were keyed
 *   by the lower-case value; now by lib/identity.ts's form (NFKC and full case folding). Each record
 *   whose key differs (`straße`, `ﬁ`, `Σ`...) has its lock moved in one transaction, so no record
 *   becomes unreachable by its filter and no value is ever free twice. Two records that now read as
 *   one (`STRASSE` and `straße`) cannot both hold the value: the second keeps its former lock (its
 *   own form stays unique) and is reported, for a person to rename one.
 * - Tax-rule summaries (the titles a list sorts, entity.ts `collection.summary`) for rules written
 *   before lists read them.
 * - Sharded counts (lib/db/sharded-count.ts). Each kind's record count moves from its counter item,
 *   which every create's transaction used to update (DynamoDB makes such writes take turns), onto the
 *   count's shards; a tax rule's `productCount` moves onto the shards of its products' count. Each
 *   move is one transaction conditioned on the value read, so a write meanwhile only makes it read
 *   again.
 * - Webhook lanes (lib/webhooks/lane.ts). Each subscription follows the feed from its own cursor,
 *   which starts where the one dispatcher of an earlier version was; the jobs it queued in four
 *   shared partitions are queued again, as they were, in their subscription's lane (run it with the
 *   workers of the earlier version stopped).
 * - Sealed secrets (lib/sealed-secrets.ts). API keys' secure keys and webhook secrets stored in clear
 *   are sealed in place, each on condition that it still holds the value read.
 */
import { commitOnce, stepsWrite } from '../db/write-plan.js';
import * as v from 'valibot';
import { defineStored } from '../db/stored.js';
import { unshardedCountSteps, type Counter } from '../db/counters.js';
import { Conflict, WriteConflict } from '../db/errors.js';
import { readItem } from '../db/items.js';
import { createSteps, readTotal } from '../db/sharded-count.js';
import { ABSENT, put, raced, retryOnConflict, update, type WriteStep } from '../db/transactions.js';
import { categories } from '../categories/entity.js';
import { countReferenceStep } from '../categories/references.js';
import { customers } from '../customers/entity.js';
import { products } from '../products/entity.js';
import { defaultSaleElementSteps } from '../products/operations.js';
import { saleElements } from '../products/sale-elements.js';
import { productsUsing, StoredTitles, taxRules } from '../tax-rules/entity.js';
import { DISPATCH_CURSOR, deliveryJobs, laneCursorKey, retryLane, sealedSecretOf, webhooks } from '../webhooks/entity.js';
import { apiKeys } from '../api-keys/entity.js';
import { sealedFor } from '../api-keys/index.js';
import type { Versioned } from '../db/entity.js';
import type { Key } from '../db/keys.js';

/** A tax rule as releases before sharded counts stored it: its product count on the rule's own item. */
const StoredCountedRule = defineStored('tax rule with its product count', { productCount: v.optional(v.number()) });
/** The one dispatcher's cursor of the releases before webhook lanes: how far it had dispatched. */
const StoredDispatchCursor = defineStored('webhook dispatch cursor', { position: v.tuple([v.number(), v.number()]) });
import { isSealed, seal } from '../sealed-secrets.js';

/**
 * What a run did, as data: named counts, each added to by the step that does it (a new step names
 * its own, and the tool prints whatever it finds), and the records it left as they were.
 */
export interface Migration {
  /** By what was done: `{ 'locks moved to the current form': 3 }`. */
  counts: Record<string, number>;
  /** Records a step left as they were, each saying why: `product 12: default category 7 names no category`. */
  kept: string[];
  /** Records whose value another record holds in the new form: `customer 12: a customer already has this email`. */
  conflicts: string[];
}

/** Adds one to what the run did. */
const tally = (migration: Migration, done: string): void => {
  migration.counts[done] = (migration.counts[done] ?? 0) + 1;
};

type Relockable<R> = { name: string; readAll(): Promise<R[]>; relock(record: R): Promise<WriteStep[]> };

async function relockEvery<R extends { id: number }>(entity: Relockable<R>, migration: Migration): Promise<void> {
  for (const record of await entity.readAll()) {
    const steps = await entity.relock(record);
    if (!steps.length) continue;
    try {
      await commitOnce(stepsWrite(() => steps));
      tally(migration, 'locks moved to the current form');
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      migration.conflicts.push(`${entity.name} ${record.id}: ${error.message}`);
    }
  }
}

async function summarizeTaxRules(migration: Migration): Promise<void> {
  const summarized = new Set((await taxRules.readSummaries()).map((item) => StoredTitles.parse(item).id));
  for (const rule of await taxRules.readAll()) {
    if (summarized.has(rule.id)) continue;
    await commitOnce(stepsWrite(() => taxRules.summarize(rule)));
    tally(migration, 'tax-rule summaries written');
  }
}

/** Runs the steps `makeSteps` reads, again while a concurrent write changes what it read; counts a move when there was one. */
async function moveCount(migration: Migration, makeSteps: () => Promise<WriteStep[]>): Promise<void> {
  await retryOnConflict(async () => {
    const steps = await makeSteps();
    if (!steps.length) return;
    await commitOnce(stepsWrite(() => steps));
    tally(migration, 'counts moved onto shards');
  });
}

async function shardCounts(migration: Migration): Promise<void> {
  const counters = [customers.counter, products.counter, taxRules.counter, webhooks.counter].filter((counter): counter is Counter => counter !== undefined);
  for (const counter of counters) await moveCount(migration, () => unshardedCountSteps(counter));
  for (const { id } of await taxRules.readAll()) {
    await moveCount(migration, async () => {
      const [shards, rule] = await Promise.all([readTotal(productsUsing(id)), readItem(taxRules.key(id))]);
      if (shards !== undefined || !rule) return [];
      // The record's schema no longer reads `productCount`: the item as the release before stored it does.
      const { productCount } = StoredCountedRule.parse(rule);
      const unchanged = productCount === undefined ? 'attribute_not_exists(productCount)' : 'productCount = :read';
      return [
        ...createSteps(productsUsing(id), Number(productCount ?? 0)),
        update(
          taxRules.key(id),
          { update: 'REMOVE productCount', condition: `attribute_exists(pk) AND ${unchanged}`, ...(productCount === undefined ? {} : { values: { ':read': productCount } }) },
          () => new WriteConflict(),
        ),
      ];
    });
  }
}

/** Seals a secret stored in clear, unless it changed since it was read (then it was written sealed). */
async function sealInPlace(key: Key, attribute: string, clear: string, context: string, migration: Migration): Promise<void> {
  const sealed = await seal(clear, context);
  const step = update(
    key,
    { update: 'SET #secret = :sealed', condition: '#secret = :clear', names: { '#secret': attribute }, values: { ':sealed': sealed, ':clear': clear } },
    () => new WriteConflict(),
  );
  try {
    await commitOnce(stepsWrite(() => [step]));
    tally(migration, 'secrets sealed');
  } catch (error) {
    if (!(error instanceof WriteConflict)) throw error;
  }
}

/** The lanes an earlier version queued every webhook job in: four shared ones, `WEBHOOK_DUE#0` to `#3`. */
const SHARED_LANES = ['0', '1', '2', '3'];

async function relaneJobs(migration: Migration): Promise<void> {
  const cursor = await readItem(DISPATCH_CURSOR);
  const dispatched = cursor && StoredDispatchCursor.parse(cursor).position;
  if (dispatched) {
    for (const webhook of await webhooks.readAll()) {
      if (await readItem(laneCursorKey(webhook.id))) continue;
      const [n, i] = dispatched[0] > webhook.start[0] || (dispatched[0] === webhook.start[0] && dispatched[1] > webhook.start[1]) ? dispatched : webhook.start;
      // Made meanwhile by a lane: it stays.
      await commitOnce(stepsWrite(() => [put({ ...laneCursorKey(webhook.id), position: [n, i] }, ABSENT, raced)])).catch((error: unknown) => {
        if (!(error instanceof WriteConflict)) throw error;
      });
    }
  }
  for (const lane of SHARED_LANES) {
    // One read: the index is eventually consistent, so a job just moved might show again.
    for (const { pk, sk, dueAt, webhookId, changeId, changeKey, attempt, firstAttemptAt } of await deliveryJobs.due(lane, Number.MAX_SAFE_INTEGER, 10_000)) {
      const attributes = { webhookId, changeId, changeKey, attempt, ...(firstAttemptAt === undefined ? {} : { firstAttemptAt }) };
      await commitOnce(stepsWrite(() => [deliveryJobs.enqueue({ pk: String(pk), sk: String(sk) }, retryLane(Number(webhookId)), Number(dueAt), attributes)]));
      tally(migration, 'webhook jobs moved into their lanes');
    }
  }
}

async function sealSecrets(migration: Migration): Promise<void> {
  for (const key of await apiKeys.readAll()) {
    if (!isSealed(key.secureKey)) await sealInPlace(apiKeys.key(key.apiKey), 'secureKey', key.secureKey, sealedFor(key.apiKey), migration);
  }
  for (const webhook of await webhooks.readAll()) {
    if (!isSealed(webhook.secret)) await sealInPlace(webhooks.key(webhook.id), 'secret', webhook.secret, sealedSecretOf(webhook.id), migration);
  }
}

/**
 * Products stored before categories: each gets the index of its default category (GSI5, what
 * `?category_default=` reads), and is counted among that category's references when it exists, so
 * that the category cannot be deleted under it. A product whose default category names none keeps
 * it, and is listed. Each write is conditioned on the version read: a product written since was
 * written by this release, which did both.
 */
async function categorizeProducts(migration: Migration): Promise<void> {
  // Many products share a category: each is looked up once.
  const found = new Map<number, Promise<boolean>>();
  const categoryExists = (id: number): Promise<boolean> => {
    const known = found.get(id) ?? categories.read(id).then((category) => category !== undefined);
    found.set(id, known);
    return known;
  };
  for await (const page of products.pages()) {
    for (const product of page) {
      const counted = product.categoryCounted === true || product.defaultCategory === 0;
      const exists = !counted && (await categoryExists(product.defaultCategory));
      if (!counted && !exists) migration.kept.push(`product ${product.id}: default category ${product.defaultCategory} names no category`);
      const steps = [products.reindex(product, exists ? { categoryCounted: true } : {}), ...(exists ? [countReferenceStep(product.defaultCategory, product.id, 1, raced)] : [])];
      try {
        await commitOnce(stepsWrite(() => steps));
        tally(migration, 'products indexed by category');
      } catch (error) {
        if (!(error instanceof WriteConflict)) throw error;
      }
    }
  }
}

/**
 * Records stored before the lists of docs/lists.md: their index keys written again as the
 * declarations make them now — texts sorted folded (products by ref and customers by last name
 * sorted by their lower case, an accented letter after `z`), and the keys of a new index (GSI6:
 * products by price, customers by registration, categories by update; GSI7: products by update,
 * categories by creation; GSI8: products by creation), which DynamoDB then fills the index from. A record written since was
 * written so.
 */
async function reindexEvery<R extends Versioned>(entity: { pages(): AsyncGenerator<R[]>; reindex(record: R): WriteStep }, migration: Migration): Promise<void> {
  for await (const page of entity.pages()) {
    for (const record of page) {
      try {
        await commitOnce(stepsWrite(() => [entity.reindex(record)]));
        tally(migration, 'records whose list keys were written again');
      } catch (error) {
        if (!(error instanceof WriteConflict)) throw error;
      }
    }
  }
}

/**
 * Products stored before sale elements (docs/api.md): each gets its default sale element, as a
 * create makes it (its ref, price in its currency and weight, no stock), and the count of its sale
 * elements, in one transaction with the product's note of it (`defaultPseId`), at the version read:
 * the product's row is unchanged, and a product written since was written by this release, which
 * made its default with it. A ref another sale element already holds (as compared) is kept as it is,
 * and listed, for a person to rename one.
 */
async function giveDefaultSaleElements(migration: Migration): Promise<void> {
  for await (const page of products.pages()) {
    for (const product of page) {
      if (product.defaultPseId !== undefined) continue;
      const made = { ...product, defaultPseId: await saleElements.allocateId() };
      try {
        await commitOnce(stepsWrite((stamp) => [products.reindex(product, { defaultPseId: made.defaultPseId }), ...defaultSaleElementSteps(stamp, made)]));
        tally(migration, 'products given their default sale element');
      } catch (error) {
        if (error instanceof Conflict) migration.conflicts.push(`product ${product.id}: a sale element already has its ref`);
        else if (!(error instanceof WriteConflict)) throw error;
      }
    }
  }
}

/** One migration: its number and name (`001-sharded-counts`), and what it does, adding what it did to the report. */
export interface MigrationStep {
  id: string;
  up(migration: Migration): Promise<void>;
}

export const emptyMigration = (): Migration => ({ counts: {}, kept: [], conflicts: [] });

/** Every migration, in the order it runs. */
export const MIGRATIONS: readonly MigrationStep[] = [
  // First: until then, the counter items of an earlier version sit among a list's records.
  { id: '001-sharded-counts', up: shardCounts },
  {
    id: '002-identity-locks',
    up: async (migration) => {
      await relockEvery(customers, migration);
      await relockEvery(products, migration);
    },
  },
  { id: '003-tax-rule-summaries', up: summarizeTaxRules },
  { id: '004-webhook-lanes', up: relaneJobs },
  { id: '005-sealed-secrets', up: sealSecrets },
  { id: '006-category-references', up: categorizeProducts },
  {
    id: '007-list-sort-keys',
    up: async (migration) => {
      await reindexEvery(products, migration);
      await reindexEvery(customers, migration);
      await reindexEvery(categories, migration);
    },
  },
  // The release of GSI7 (one index per update of a table): its keys on the records before it.
  {
    id: '008-update-and-creation-keys',
    up: async (migration) => {
      await reindexEvery(products, migration);
      await reindexEvery(categories, migration);
    },
  },
  // The release of GSI8: products by creation.
  { id: '009-creation-keys', up: (migration) => reindexEvery(products, migration) },
  { id: '010-default-sale-elements', up: giveDefaultSaleElements },
  {
    // Products and customers listed in shards of their lists' partitions (lib/products/entity.ts): those stored before are listed again, in their shards.
    id: '011-sharded-lists',
    up: async (migration) => {
      await reindexEvery(products, migration);
      await reindexEvery(customers, migration);
    },
  },
];
