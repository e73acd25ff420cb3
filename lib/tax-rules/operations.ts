/**
 * Tax-rule operations. Lists sort the rules' summaries in memory (at most 1 000 per store) and read
 * only the page's rules; the default is a pointer moved in the same transaction as the rules' flags;
 * the products using a rule are a sharded count beside it (entity.ts). Each write is an operation's
 * reads, then a plan made from them (`…Plan`, unit-tested by its steps), committed by whoever runs it
 * (lib/db/write-plan.ts).
 */
import { Conflict, NotFound } from '../db/errors.js';
import { readTogether } from '../db/items.js';
import { pageSorted, type Page, type PageRequest, type Position } from '../db/page.js';
import { addStep, createSteps, readShards, readTotal, removeAsReadSteps, sumOf, type ShardValues } from '../db/sharded-count.js';
import { raced, type OnConditionFailed, type WriteStep } from '../db/transactions.js';
import { versionedCache } from '../db/version-item.js';
import { plan, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField } from '../errors.js';
import { localeOf, mergeTexts, type I18n } from '../i18n.js';
import { defaultLang, type Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { defaultTaxRule, productsUsing, StoredTitles, taxRules, taxRulesVersion, type TaxRule, type TaxRuleText } from './entity.js';
import { taxRuleRow } from './row.js';
import type { TaxRuleCreateInput, TaxRuleListInput, TaxRuleUpdateInput } from './schema.js';

const missing = () => new NotFound('tax rule');

async function readRule(id: number): Promise<TaxRule> {
  const rule = await taxRules.read(id);
  if (!rule) throw missing();
  return rule;
}

/** The rule and where the default pointer points, in one consistent read (twice a plain read's cost). */
async function readRuleAndDefault(id: number): Promise<{ rule: TaxRule; defaultId: number | undefined }> {
  const [rule, pointer] = await readTogether([taxRules.key(id), defaultTaxRule.key]);
  if (!rule) throw missing();
  return { rule: taxRules.fromItem(rule), defaultId: defaultTaxRule.targetOf(pointer) };
}

/** The rule the default pointer names (`previous`) when `id` takes its place: none when it is unset or `id` already. */
const readFormerDefault = (id: number, previous: number | undefined): Promise<TaxRule | undefined> =>
  previous !== undefined && previous !== id ? taxRules.read(previous) : Promise.resolve(undefined);

/**
 * Steps that make `id` the default: the former default (as read) loses its flag (and its row
 * changes version), and the pointer moves, on condition that it still points where we read it.
 */
function defaultMoveSteps(stamp: WriteStamp, id: number, previous: number | undefined, former: TaxRule | undefined, byImport = false): WriteStep[] {
  if (!former) return [defaultTaxRule.move(previous, id)];
  const version = former.version + 1;
  // A store's import moving the default keeps the former default its own, if it was (importedVersion).
  const stillImported = byImport && former.importedVersion === former.version ? { importedVersion: version } : {};
  // A replace at the version read (a concurrent change of it: read again), so that it records its change too.
  return [...taxRules.replace(stamp, former, { ...former, ...stillImported, isDefault: false, updatedAt: stamp.now, version }, undefined), defaultTaxRule.move(previous, id)];
}

export const getTaxRule = async (id: number, lang: Lang | undefined): Promise<Row> => taxRuleRow(await readRule(id), localeOf(lang));

/** Rules by id, in one batch read. */
export async function taxRulesById(ids: readonly number[]): Promise<Map<number, TaxRule>> {
  return new Map((await taxRules.readMany(ids)).map((rule) => [rule.id, rule]));
}

/**
 * The rules product rows need (`ids`), given the rules' version read with the products: cached by
 * this container for pricing, labelled with that version (a change of any rule bumps it).
 */
export const taxRulesAt = versionedCache(taxRulesById);

/**
 * Records and the rules that price them, in one round trip when this container has those rules
 * cached: the rules' version is asked in the same turn as `records` (one BatchGet with their keys,
 * lib/db/items.ts), and the rules come from the cache at that version.
 */
export async function pricedBy<T extends { taxRuleId: number }>(records: Promise<readonly T[]>): Promise<[readonly T[], ReadonlyMap<number, TaxRule>]> {
  const [found, version] = await Promise.all([records, taxRulesVersion.read()]);
  return [
    found,
    await taxRulesAt(
      version,
      found.map((record) => record.taxRuleId),
    ),
  ];
}

/**
 * A step that counts products in (or out of) a rule, on the shard of `productId` (a batch of products
 * with consecutive ids may count on the shard of any one of them, but a product counted in must be
 * counted out on its own), failing when the rule does not exist.
 */
export const countProductStep = (ruleId: number, productId: number, delta: number, onMissing: OnConditionFailed): WriteStep =>
  addStep(productsUsing(ruleId), productId, delta, { whileExists: onMissing });

/** How many products use the rule. */
export const productsUsingRule = async (ruleId: number): Promise<number> => (await readTotal(productsUsing(ruleId))) ?? 0;

/**
 * A page of rules, whose cost is bounded by the page (docs/lists.md): the rules' summaries (ids and
 * titles, a few hundred bytes a rule) are sorted in memory, then only the page's rules are read, in
 * one batch. A rule deleted between the two reads is left out of the page.
 */
export async function listTaxRules(query: TaxRuleListInput, page: PageRequest): Promise<Page<Row>> {
  const locale = localeOf(query.lang);
  const collator = new Intl.Collator(locale.replace('_', '-'));
  const byTitle = query.order.by === 'alpha';
  // A rule's sort key: its title as its row shows it in this locale (alpha), then its id, which makes it unique.
  const keyOf = (entry: TaxRuleSummary): Position => (byTitle ? [entry.title, entry.id] : [entry.id]);
  const ascending = (a: Position, b: Position): number => {
    const [titleA, titleB] = byTitle ? [String(a[0]), String(b[0])] : ['', ''];
    return collator.compare(titleA, titleB) || Number(a.at(-1)) - Number(b.at(-1));
  };
  const compare = query.order.reverse ? (a: Position, b: Position) => ascending(b, a) : ascending;
  const summaries = (await taxRules.readSummaries()).map((item) => summaryIn(item, locale)).sort((a, b) => compare(keyOf(a), keyOf(b)));
  const found = pageSorted(summaries, page, keyOf, compare);
  const rules = await taxRulesById(found.items.map((entry) => entry.id));
  const kept = found.items.flatMap((entry, i) => {
    const [rule, position] = [rules.get(entry.id), found.positions?.[i]];
    return rule && position ? [{ row: taxRuleRow(rule, locale), position }] : [];
  });
  return { ...found, items: kept.map((k) => k.row), positions: kept.map((k) => k.position) };
}

interface TaxRuleSummary {
  id: number;
  title: string;
}

/** A summary as a rule's row would sort in `locale`: its title there, else the default language's. */
function summaryIn(item: Record<string, unknown>, locale: string): TaxRuleSummary {
  const { id, titles } = StoredTitles.parse(item);
  return { id, title: titles[locale] ?? titles[defaultLang.locale] ?? '' };
}

/**
 * The steps that write a whole rule as a create does (a store's import too, `byImport`): the rule, or
 * in place of `replaced` (a record nobody changed, at its version), the rules' version, and the
 * default's move.
 */
export async function wholeRuleSteps(stamp: WriteStamp, rule: TaxRule, replaced?: TaxRule, byImport = false): Promise<WriteStep[]> {
  const write = replaced ? taxRules.replace(stamp, replaced, rule, replaced.version) : [...taxRules.create(stamp, rule), ...createSteps(productsUsing(rule.id))];
  const previous = rule.isDefault ? await defaultTaxRule.read() : undefined;
  const defaultSteps = rule.isDefault
    ? defaultMoveSteps(stamp, rule.id, previous, await readFormerDefault(rule.id, previous), byImport)
    : replaced?.isDefault
      ? [defaultTaxRule.clear(replaced.id)]
      : [];
  return [...write, taxRulesVersion.bump(), ...defaultSteps];
}

/** A new rule record, at version 1, used by no product, from the create's fields (the API's, or a store's import). */
export function newTaxRule(input: TaxRuleCreateInput, creation: { id: number; createdAt: string; updatedAt: string }): TaxRule {
  const i18n: I18n<TaxRuleText> = {};
  for (const entry of input.i18n) i18n[entry.locale] = { title: entry.title, ...(entry.description !== undefined ? { description: entry.description } : {}) };
  return { ...creation, countries: input.country, taxes: input.tax, i18n, isDefault: input.default === true, version: 1 };
}

/**
 * Its id is allocated once; its plan is made again at each attempt, since it reads where the default
 * points (a concurrent move fails the pointer's condition: read again).
 */
export function createTaxRule(input: TaxRuleCreateInput, lang: Lang | undefined): Write<Row> {
  let made: Promise<TaxRule> | undefined;
  return new Write(async (stamp) => {
    const rule = await (made ??= taxRules.allocateId().then((id) => newTaxRule(input, { id, createdAt: stamp.now, updatedAt: stamp.now })));
    return recordedPlan(await wholeRuleSteps(stamp, rule), taxRuleRow(rule, localeOf(lang, input.i18n[0]?.locale)));
  });
}

/** What an update reads: the rule, and for one that becomes the default, where the pointer points and the rule it names. */
export interface TaxRuleUpdateReads {
  rule: TaxRule;
  defaultId: number | undefined;
  formerDefault: TaxRule | undefined;
  stamp: WriteStamp;
}

/** An update's plan: the rule replaced at the version expected (else read), the rules' version bumped, the default moved to it when asked. */
export function updateTaxRulePlan(input: TaxRuleUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined, reads: TaxRuleUpdateReads): WritePlan<Row> {
  const { rule, stamp } = reads;
  let i18n = rule.i18n;
  for (const [index, entry] of (input.i18n ?? []).entries()) {
    if (!i18n[entry.locale] && entry.title === undefined) throw invalidField(`i18n[${index}].title`, 'is required for a new locale');
    const { locale, ...changes } = entry;
    i18n = mergeTexts(i18n, locale, changes);
  }
  const becomesDefault = input.default === true && !rule.isDefault;
  const next: TaxRule = {
    ...rule,
    countries: input.country ?? rule.countries,
    taxes: input.tax ?? rule.taxes,
    i18n,
    isDefault: rule.isDefault || becomesDefault,
    version: rule.version + 1,
    updatedAt: stamp.now,
  };
  const steps = [...taxRules.replace(stamp, rule, next, expectedVersion), taxRulesVersion.bump(), ...(becomesDefault ? defaultMoveSteps(stamp, rule.id, reads.defaultId, reads.formerDefault) : [])];
  return plan(steps, taxRuleRow(next, localeOf(lang, input.i18n?.[0]?.locale)));
}

export const updateTaxRule = (input: TaxRuleUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Write<Row> =>
  new Write(async (stamp) => {
    // Only a write that may move the default needs to read the pointer with the rule.
    const { rule, defaultId } = input.default === true ? await readRuleAndDefault(input.id) : { rule: await readRule(input.id), defaultId: undefined };
    const formerDefault = input.default === true && !rule.isDefault ? await readFormerDefault(rule.id, defaultId) : undefined;
    return updateTaxRulePlan(input, lang, expectedVersion, { rule, defaultId, formerDefault, stamp });
  });

/**
 * A delete's plan: refused (409) while a product uses the rule; else the rule, its count as read (a
 * product counted in or out since fails a shard's condition: read again), the rules' version, and
 * the pointer cleared when it was the default (the store then has none until one is chosen).
 */
export function deleteTaxRulePlan(rule: TaxRule, usage: ShardValues | undefined, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const used = sumOf(usage);
  if (used > 0) throw new Conflict(`tax rule ${rule.id} is used by ${used} product(s)`);
  return plan(
    [...taxRules.remove(stamp, rule, expectedVersion), ...removeAsReadSteps(productsUsing(rule.id), usage, raced), taxRulesVersion.bump(), ...(rule.isDefault ? [defaultTaxRule.clear(rule.id)] : [])],
    undefined,
  );
}

export const deleteTaxRule = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [rule, usage] = await Promise.all([readRule(id), readShards(productsUsing(id))]);
    return deleteTaxRulePlan(rule, usage, expectedVersion, stamp);
  });
