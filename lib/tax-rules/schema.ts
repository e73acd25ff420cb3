/** Inputs of the tax-rule routes (docs/api.md). */
import * as v from 'valibot';
import { countries, taxes } from '../reference/index.js';
import { langParam, langQuery, locale } from '../i18n.js';
import { flag, integer, knownId, longText, orderParam, requiredText } from '../validation.js';

export const MAX_DESCRIPTION = 10_000;

const distinct = <T>(what: string) => v.check<T[], string>((items) => new Set(items).size === items.length, `must not repeat a ${what}`);

const countryList = () => v.pipe(v.array(knownId(countries, 'country id'), 'must be an array of country ids'), v.nonEmpty('must not be empty'), distinct('country'));
const taxList = () => v.pipe(v.array(knownId(taxes, 'tax id'), 'must be an array of tax ids'), v.nonEmpty('must not be empty'), distinct('tax'));

const distinctLocales = <T extends { locale: string }>() => v.check<T[], string>((entries) => new Set(entries.map((e) => e.locale)).size === entries.length, 'must not repeat a locale');

const I18nEntry = v.strictObject({ locale: locale(), title: requiredText(), description: v.optional(longText(MAX_DESCRIPTION)) });

const i18nList = <Entry extends v.GenericSchema<unknown, { locale: string }>>(entry: Entry) =>
  v.pipe(v.array(entry, 'must be an array'), v.nonEmpty('must not be empty'), distinctLocales<v.InferOutput<Entry>>());

export const TaxRuleCreate = v.strictObject({
  country: countryList(),
  tax: taxList(),
  i18n: i18nList(I18nEntry),
  default: v.optional(flag()),
});

/** Every field optional; `i18n` entries merge per locale, so a known locale needs no title. */
export const TaxRuleUpdate = v.pipe(
  v.strictObject({ id: integer(1), ...v.partial(TaxRuleCreate).entries, i18n: v.optional(i18nList(v.partial(I18nEntry, ['title']))) }),
  v.check((body) => Object.keys(body).length > 1, 'has nothing to update: send id and at least one field to change'),
);

export const TaxRuleListQuery = v.object({ order: orderParam(['id', 'alpha']), lang: langParam() });
export const TaxRuleQuery = langQuery();

export type TaxRuleCreateInput = v.InferOutput<typeof TaxRuleCreate>;
export type TaxRuleUpdateInput = v.InferOutput<typeof TaxRuleUpdate>;
export type TaxRuleListInput = v.InferOutput<typeof TaxRuleListQuery>;
