/**
 * What tax rules are to a store's import (docs/moving-from-thelia.md, lib/import/kind.ts): Thelia's `tax_rule`
 * rows with their texts and their countries' taxes, each mapped through the API's own create schema,
 * and written one to a transaction with the rules' version and the default's pointer, as the API's
 * create writes them. A fresh install's seeded rule that nobody changed or used gives way to the
 * store's rule of its id. Tooling: only `npm run import` loads it.
 */
import * as v from 'valibot';
import { contentOf } from '../import/destination.js';
import { defineImportKind } from '../import/kind.js';
import { blankTexts, changedTexts, datesOf, list, problemsOf, textOf, type Mapped, type Problem } from '../import/mapping.js';
import { dateOf, groupBy, numberOrNull, type TheliaSource } from '../import/source.js';
import { present } from '../present.js';
import { taxRules, type TaxRule } from './entity.js';
import { deleteTaxRule, newTaxRule, productsUsingRule, wholeRuleSteps } from './operations.js';
import { TaxRuleCreate } from './schema.js';
import { seededTaxRules } from './seed.js';

export interface TheliaTaxRule {
  id: number;
  isDefault: number;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: { locale: string; title: string | null; description: string | null }[];
  /** One row per (country, state, tax), with the tax's position in that country. */
  countryTaxes: { countryId: number; stateId: number | null; taxId: number; position: number }[];
}

async function* taxRuleRows(source: TheliaSource, size: number): AsyncGenerator<TheliaTaxRule[]> {
  for await (const rules of source.idBatches('tax_rule', 'id, is_default, created_at, updated_at', size)) {
    const ids = rules.map((r) => Number(r.id));
    const [i18n, countryTaxes] = await Promise.all([
      source.select('SELECT id, locale, title, description FROM tax_rule_i18n WHERE id IN (?) ORDER BY id, locale', [ids]),
      source.select('SELECT tax_rule_id, country_id, state_id, tax_id, position FROM tax_rule_country WHERE tax_rule_id IN (?) ORDER BY tax_rule_id, country_id, position, id', [ids]),
    ]);
    const textsOf = groupBy(i18n, 'id', (r) => ({ locale: String(r.locale), title: r.title as string | null, description: r.description as string | null }));
    const taxesOf = groupBy(countryTaxes, 'tax_rule_id', (r) => ({
      countryId: Number(r.country_id),
      stateId: numberOrNull(r.state_id),
      taxId: Number(r.tax_id),
      position: Number(r.position),
    }));
    yield rules.map((r) => ({
      id: Number(r.id),
      isDefault: Number(r.is_default),
      createdAt: dateOf(r.created_at),
      updatedAt: dateOf(r.updated_at),
      i18n: textsOf.get(Number(r.id)) ?? [],
      countryTaxes: taxesOf.get(Number(r.id)) ?? [],
    }));
  }
}

/**
 * A rule's countries and ordered taxes. The API applies one list of taxes, compounding in order, to
 * all of a rule's countries: a rule whose countries differ, whose taxes share a position (Thelia
 * applies those to the same base) or that narrows a country to a state is not representable.
 */
function countriesAndTaxes(rule: TheliaTaxRule, problems: Problem[]): { countries: number[]; taxes: number[] } {
  const state = rule.countryTaxes.find((row) => row.stateId !== null);
  if (state) problems.push({ field: 'tax_rule_country.state_id', message: `narrows country ${state.countryId} to state ${state.stateId}, which the API cannot represent` });
  const taxesByCountry = new Map<number, { taxId: number; position: number }[]>();
  for (const row of rule.countryTaxes) taxesByCountry.set(row.countryId, [...(taxesByCountry.get(row.countryId) ?? []), row]);
  const orders = new Map<string, number>();
  for (const [country, rows] of taxesByCountry) {
    const sorted = [...rows].sort((a, b) => a.position - b.position);
    const shared = sorted.find((row, i) => i > 0 && sorted[i - 1]?.position === row.position);
    if (shared) {
      problems.push({
        field: 'tax_rule_country.position',
        message: `taxes share position ${shared.position} in country ${country} (Thelia applies them to the same base), which the API cannot represent`,
      });
    }
    const order = list(sorted.map((row) => row.taxId));
    if (!orders.has(order)) orders.set(order, country);
  }
  if (orders.size > 1) {
    const examples = [...orders].slice(0, 2).map(([taxes, country]) => `country ${country}: taxes ${taxes}`);
    problems.push({ field: 'tax_rule_country', message: `its countries apply different taxes (${examples.join('; ')}); the API applies one list of taxes to all of a rule's countries` });
  }
  const countries = [...taxesByCountry.keys()].sort((a, b) => a - b);
  const [first] = countries;
  const taxes = [...((first !== undefined && taxesByCountry.get(first)) || [])].sort((a, b) => a.position - b.position).map((row) => row.taxId);
  return { countries, taxes };
}

export function mapTaxRule(rule: TheliaTaxRule): Mapped<TaxRule> {
  const problems: Problem[] = [];
  const dates = datesOf('tax_rule', rule, problems);
  const { countries, taxes } = countriesAndTaxes(rule, problems);
  const i18n = rule.i18n
    .map((row) => ({ locale: row.locale, title: textOf(row.title), description: textOf(row.description) }))
    .filter((row) => row.title !== undefined || row.description !== undefined);
  const input = {
    country: countries,
    tax: taxes,
    i18n: i18n.map(({ locale, title, description }) => ({ locale, title, ...(description !== undefined ? { description } : {}) })),
    default: rule.isDefault,
  };
  const parsed = v.safeParse(TaxRuleCreate, input);
  if (rule.countryTaxes.length === 0) problems.push({ field: 'tax_rule_country', message: 'the rule has no country' });
  if (!parsed.success) {
    const known = new Set(problems.map((problem) => problem.field.split('.')[0]));
    const schemaProblems = problemsOf(parsed.issues, ([field, index, key]) => {
      if (field === 'country') return 'tax_rule_country.country_id';
      if (field === 'tax') return 'tax_rule_country.tax_id';
      if (field === 'default') return 'tax_rule.is_default';
      const locale = typeof index === 'number' ? i18n[index]?.locale : undefined;
      return locale === undefined ? 'tax_rule_i18n' : `tax_rule_i18n[${locale}].${key ?? 'locale'}`;
    });
    for (const problem of schemaProblems) {
      if (problem.field === 'tax_rule_i18n' && /empty/.test(problem.message)) problems.push({ ...problem, message: 'has no title in any locale' });
      else if (!known.has(problem.field.split('.')[0] ?? '')) problems.push(problem);
    }
  }
  if (!parsed.success || problems.length || !dates) return { problems };
  const normalized = [
    ...blankTexts(rule.i18n, { table: 'tax_rule_i18n', row: rule.id }, ['title', 'description']),
    ...i18n.flatMap((given, index) =>
      changedTexts({ table: 'tax_rule_i18n', row: rule.id, locale: given.locale }, given, present(parsed.output.i18n[index], `i18n entry ${index}`), ['title', 'description']),
    ),
  ];
  return { record: newTaxRule(parsed.output, { id: rule.id, ...dates }), normalized };
}

/** A rule of the table's seed that nobody changed or used: the store's own rule of that id takes its place. */
async function untouchedSeed(stored: TaxRule): Promise<boolean> {
  const seed = seededTaxRules(stored.createdAt).find((candidate) => candidate.id === stored.id);
  return seed !== undefined && stored.version === 1 && contentOf(stored) === contentOf(seed) && (await productsUsingRule(stored.id)) === 0;
}

export const importKind = defineImportKind<TheliaTaxRule, TaxRule>({
  kind: 'tax rule',
  table: 'tax_rule',
  absent: 'is not a tax rule of the source',
  counter: taxRules.counter,
  begin(source, size) {
    let defaultRule: number | undefined;
    return Promise.resolve({
      batches: taxRuleRows(source, size),
      map(rule): Mapped<TaxRule> {
        const mapped = mapTaxRule(rule);
        // The first rule the source flags is its default; another flagged one is not guessed at.
        const otherDefault = rule.isDefault ? defaultRule : undefined;
        if (rule.isDefault) defaultRule ??= rule.id;
        if (mapped.problems || otherDefault === undefined) return mapped;
        return { problems: [{ field: 'tax_rule.is_default', message: `tax rule ${otherDefault} is the default too, and a store has one default rule` }] };
      },
    });
  },
  writer: {
    readMany: (ids) => taxRules.readMany(ids),
    steps(stamp, [rule, ...others]) {
      // Two rules in one transaction would both write the rules' version: one item, twice.
      if (!rule || others.length) throw new Error(`tax rules are written one to a transaction, not ${others.length + (rule ? 1 : 0)}`);
      return wholeRuleSteps(stamp, rule, undefined, true);
    },
    updateSteps: (stamp, stored, next) => wholeRuleSteps(stamp, next, stored, true),
    same: (stored, imported) => contentOf(stored) === contentOf(imported),
    replaceable: untouchedSeed,
    perTransaction: 1,
  },
  pages: () => taxRules.pages(),
  remove: deleteTaxRule,
  async inUse(rule, freed) {
    const used = (await productsUsingRule(rule.id)) - freed;
    return used > 0 ? `used by ${used} product(s)` : undefined;
  },
});
