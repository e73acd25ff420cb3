/**
 * Tax-rule operations. Rules live in one partition (at most 1 000 per store), so lists are read
 * whole, consistently, and sorted in memory. The item TAXRULE/DEFAULT points at the default rule;
 * every change of the default updates it under a condition on its old value, in the same
 * transaction as the rules' flags, so that at most one rule is the default, whatever the concurrency.
 */
import { TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { readItem, readItems } from '../db/items.js';
import { db, tableName } from '../db/client.js';
import { allocateId, type CountedList } from '../db/counters.js';
import { keys } from '../db/keys.js';
import { toLoop, type LoopResult } from '../db/loop.js';
import { pageInMemory, queryAll } from '../db/paging.js';
import { atVersion, putNew, remove, retryOnConflict, update, versionMismatch, writeAtomically, WriteConflict, type WriteStep } from '../db/transactions.js';
import { HttpProblem, conflict, invalidField, notFound } from '../http/problem.js';
import { localeOf } from '../http/list-query.js';
import { mergeTexts, type I18n } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import { fromItem, toItem, toRow, type TaxRuleItem, type TaxRuleText } from './model.js';
import type { TaxRuleCreateInput, TaxRuleListInput, TaxRuleUpdateInput } from './schema.js';

/** Ids 1 and 2 are the seeded rules of a fresh Thelia install. */
const FIRST_TAX_RULE_ID = 3;
const TAX_RULE_IDS: CountedList = { kind: 'TAXRULE', partitions: [] };

const missing = () => notFound('tax rule');

/**
 * The rule, and the default pointer when the write may move it: both in one consistent read. A
 * transactional read costs twice a plain one, so other updates read the rule alone.
 */
async function readRule(id: number, withDefault: boolean): Promise<{ rule: TaxRuleItem | undefined; defaultId: number | undefined }> {
  if (!withDefault) {
    const item = await readItem(keys.taxRule(id));
    return { rule: item ? fromItem(item) : undefined, defaultId: undefined };
  }
  const result = await db().send(
    new TransactGetCommand({
      TransactItems: [{ Get: { TableName: tableName(), Key: keys.taxRule(id) } }, { Get: { TableName: tableName(), Key: keys.defaultTaxRule() } }],
    }),
  );
  const [rule, pointer] = result.Responses ?? [];
  return { rule: rule?.Item ? fromItem(rule.Item) : undefined, defaultId: pointer?.Item?.ruleId as number | undefined };
}

export async function getDefaultTaxRuleId(): Promise<number | undefined> {
  return (await readItem(keys.defaultTaxRule()))?.ruleId as number | undefined;
}

/**
 * Steps that make `id` the default: the old default loses its flag (and its row changes version),
 * and the pointer moves, on condition that it still points where we read it.
 */
function makeDefaultSteps(id: number, previous: number | undefined, now: string): WriteStep[] {
  const steps: WriteStep[] = [];
  if (previous !== undefined && previous !== id) {
    steps.push(
      update(
        keys.taxRule(previous),
        { update: 'SET isDefault = :no, version = version + :one, updatedAt = :now', condition: 'attribute_exists(pk)', values: { ':no': false, ':one': 1, ':now': now } },
        () => new WriteConflict(),
      ),
    );
  }
  steps.push(
    update(
      keys.defaultTaxRule(),
      previous === undefined
        ? { update: 'SET ruleId = :id', condition: 'attribute_not_exists(pk)', values: { ':id': id } }
        : { update: 'SET ruleId = :id', condition: 'ruleId = :previous', values: { ':id': id, ':previous': previous } },
      () => new WriteConflict(),
    ),
  );
  return steps;
}

export async function getTaxRule(id: number, lang: Lang | undefined): Promise<LoopResult> {
  const item = await readItem(keys.taxRule(id));
  if (!item) throw missing();
  return toLoop([toRow(fromItem(item), localeOf(lang))]);
}

/** Every rule, read consistently from the rules' partition. */
export async function readAllTaxRules(): Promise<TaxRuleItem[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.taxRulePartition, ':prefix': keys.taxRulePrefix },
    ConsistentRead: true,
  });
  return items.map(fromItem);
}

export async function listTaxRules(query: TaxRuleListInput, path: string): Promise<LoopResult> {
  const locale = localeOf(query.lang);
  const rows = (await readAllTaxRules()).map((rule) => toRow(rule, locale));
  const collator = new Intl.Collator(locale.replace('_', '-'));
  const byId = (a: (typeof rows)[number], b: (typeof rows)[number]) => Number(a.ID) - Number(b.ID);
  const byTitle = (a: (typeof rows)[number], b: (typeof rows)[number]) => collator.compare(String(a.TITLE), String(b.TITLE)) || byId(a, b);
  const sorted = rows.sort(query.order.startsWith('alpha') ? byTitle : byId);
  if (query.order.endsWith('_reverse')) sorted.reverse();
  const listParams: Record<string, string> = { order: query.order, ...(query.lang ? { lang: query.lang.locale } : {}) };
  const page = pageInMemory(sorted, { scope: `tax-rules|${query.order}`, path, query: listParams }, query, sorted.length);
  return toLoop(page.items, page.headers);
}

export async function createTaxRule(input: TaxRuleCreateInput, lang: Lang | undefined): Promise<LoopResult> {
  const id = await allocateId(TAX_RULE_IDS, FIRST_TAX_RULE_ID);
  const now = new Date().toISOString();
  const i18n: I18n<TaxRuleText> = {};
  for (const entry of input.i18n) i18n[entry.locale] = { title: entry.title, ...(entry.description !== undefined ? { description: entry.description } : {}) };
  const rule: TaxRuleItem = {
    id,
    countries: input.country,
    taxes: input.tax,
    i18n,
    isDefault: input.default === true,
    productCount: 0,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const create = putNew(toItem(rule), () => new HttpProblem(409, `tax rule ${id} already exists`));
  if (rule.isDefault) {
    await retryOnConflict(async () => writeAtomically([create, ...makeDefaultSteps(id, await getDefaultTaxRuleId(), now)]));
  } else {
    await writeAtomically([create]);
  }
  return toLoop([toRow(rule, localeOf(lang, input.i18n[0]!.locale))]);
}

export async function updateTaxRule(input: TaxRuleUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Promise<LoopResult> {
  const updated = await retryOnConflict(async () => {
    const { rule, defaultId } = await readRule(input.id, input.default === true);
    if (!rule) throw missing();
    let i18n = rule.i18n;
    for (const [index, entry] of (input.i18n ?? []).entries()) {
      if (!i18n[entry.locale] && entry.title === undefined) throw invalidField(`i18n[${index}].title`, 'is required for a new locale');
      const { locale, ...changes } = entry;
      i18n = mergeTexts(i18n, locale, changes);
    }
    const now = new Date().toISOString();
    const becomesDefault = input.default === true && !rule.isDefault;
    const next: TaxRuleItem = {
      ...rule,
      countries: input.country ?? rule.countries,
      taxes: input.tax ?? rule.taxes,
      i18n,
      isDefault: rule.isDefault || becomesDefault,
      version: rule.version + 1,
      updatedAt: now,
    };
    const version = atVersion(expectedVersion, rule.version);
    const write = update(
      keys.taxRule(rule.id),
      {
        update: 'SET countries = :countries, taxes = :taxes, i18n = :i18n, isDefault = :isDefault, version = :next, updatedAt = :now',
        condition: version.expression,
        values: {
          ':countries': next.countries,
          ':taxes': next.taxes,
          ':i18n': next.i18n,
          ':isDefault': next.isDefault,
          ':next': next.version,
          ':now': now,
          ...version.values,
        },
      },
      versionMismatch(expectedVersion, 'tax rule'),
    );
    await writeAtomically([write, ...(becomesDefault ? makeDefaultSteps(rule.id, defaultId, now) : [])]);
    return next;
  });
  const firstLocale = input.i18n?.[0]?.locale;
  return toLoop([toRow(updated, localeOf(lang, firstLocale))]);
}

export async function deleteTaxRule(id: number, expectedVersion: number | undefined): Promise<void> {
  await retryOnConflict(async () => {
    const item = await readItem(keys.taxRule(id));
    if (!item) throw missing();
    const rule = fromItem(item);
    if ((rule.productCount ?? 0) > 0) throw conflict(`tax rule ${id} is used by ${rule.productCount} product(s)`);
    const steps = [
      remove(
        keys.taxRule(id),
        {
          expression: `${atVersion(expectedVersion, rule.version).expression} AND (attribute_not_exists(productCount) OR productCount = :zero)`,
          values: { ...atVersion(expectedVersion, rule.version).values, ':zero': 0 },
        },
        (current) =>
          current && Number(current.productCount ?? 0) > 0
            ? conflict(`tax rule ${id} is used by ${current.productCount} product(s)`)
            : versionMismatch(expectedVersion, 'tax rule')(current),
      ),
    ];
    // The default rule can be deleted; the store then has no default until one is chosen.
    if (rule.isDefault) steps.push(remove(keys.defaultTaxRule(), { expression: 'ruleId = :id', values: { ':id': id } }, () => new WriteConflict()));
    await writeAtomically(steps);
  });
}

/** Rules by id, in one BatchGet (product rows need their rule's taxes). */
export async function getTaxRulesByIds(ids: readonly number[]): Promise<Map<number, TaxRuleItem>> {
  const items = await readItems([...new Set(ids)].map((id) => keys.taxRule(id)));
  return new Map(items.map(fromItem).map((rule) => [rule.id, rule]));
}

/** A step that counts a product in (or out of) a rule, failing when the rule does not exist. */
export function countProductStep(ruleId: number, delta: 1 | -1, onMissing: () => Error): WriteStep {
  return update(keys.taxRule(ruleId), { update: 'ADD productCount :delta', condition: 'attribute_exists(pk)', values: { ':delta': delta } }, onMissing);
}
