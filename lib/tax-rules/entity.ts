/**
 * How tax rules live in the table, declared once. Rules are few (at most 1 000 per store) and kept
 * in one partition, each with a summary of its titles beside it, so a list sorts the summaries,
 * consistently, and reads only its page's rules. A pointer item names the default
 * rule: every change of the default moves it under a condition on where it pointed, in the same
 * transaction as the rules' flags, so that at most one rule is the default, whatever the concurrency.
 */
import * as v from 'valibot';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { defineStored } from '../db/stored.js';
import { bit } from '../row.js';
import { padId } from '../db/keys.js';
import { definePointer } from '../db/pointer.js';
import { shardedCount } from '../db/sharded-count.js';
import { defineVersionItem } from '../db/version-item.js';

export const TEXT_FIELDS = ['title', 'description'] as const;
export type TaxRuleText = (typeof TEXT_FIELDS)[number];

export const TaxRuleRecord = v.object({
  id: v.number(),
  countries: v.array(v.number()),
  /** Tax ids in application order. */
  taxes: v.array(v.number()),
  i18n: v.record(v.string(), v.object({ title: v.optional(v.string()), description: v.optional(v.string()) })),
  isDefault: v.boolean(),
  ...versionedEntries,
});

export type TaxRule = v.InferOutput<typeof TaxRuleRecord>;

/** A rule's title in each of its locales: what sorting rules needs (with the id). */
export const titlesOf = (rule: Pick<TaxRule, 'i18n'>): Record<string, string> =>
  Object.fromEntries(Object.entries(rule.i18n).flatMap(([locale, texts]) => (texts.title !== undefined ? [[locale, texts.title]] : [])));

/** A rule's summary, as its item holds it (the collection's `summary` below writes it): what lists sort. */
export const StoredTitles = defineStored('tax-rule summary', { id: v.number(), titles: v.record(v.string(), v.string()) });

const PARTITION = 'TAXRULE';
const RULE_PREFIX = 'RULE#';

export const taxRules = defineEntity({
  name: 'tax rule',
  schema: TaxRuleRecord,
  id: (rule) => rule.id,
  key: (id: number) => ({ pk: PARTITION, sk: `${RULE_PREFIX}${padId(id)}` }),
  // Lists sort the rules' titles (a few hundred bytes a rule), then read only the page's rules.
  collection: { partition: PARTITION, sortPrefix: RULE_PREFIX, summary: { sortPrefix: 'TITLES#', fields: (rule) => ({ titles: titlesOf(rule) }) } },
  // Ids 1 and 2 are the seeded rules of a fresh Thelia install; a store holds at most 1 000 rules
  // (docs/api.md), so that lists may read them whole.
  counter: { name: 'TAXRULE', firstId: 3, max: 1000 },
  audit: {
    resource: 'tax-rule',
    fields: (rule) => [
      ...localizedFields(rule.i18n, TEXT_FIELDS),
      { field: 'IS_DEFAULT', locale: null, value: bit(rule.isDefault) },
      { field: 'COUNTRIES', locale: null, value: rule.countries },
      { field: 'TAXES', locale: null, value: rule.taxes },
    ],
  },
});

/**
 * How many products use a rule (a used rule cannot be deleted), as a count of 16 shards beside it,
 * made with the rule and deleted with it. A product's write adds to its own shard on condition that
 * the shard exists: that is the transaction's proof that the rule exists, without every product of
 * the rule writing the rule's own item (which DynamoDB would make them take turns on).
 */
export const productsUsing = (ruleId: number) => shardedCount(`TAXRULE_USE#${ruleId}`, 16);

export const defaultTaxRule = definePointer({ pk: PARTITION, sk: 'DEFAULT' });

/** Grows with every change of any rule, so that containers can cache rules for pricing (operations.ts). */
export const taxRulesVersion = defineVersionItem({ pk: PARTITION, sk: 'VERSION' });
