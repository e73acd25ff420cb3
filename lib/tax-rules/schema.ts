/** Inputs of the tax-rule routes (seed §2.3, CONTRACT §6). */
import * as v from 'valibot';
import { countries, taxes } from '../reference/index.js';
import { flag, integer, knownId, locale, requiredText, text } from '../validation.js';
import { langQuery, listQuery } from '../http/list-query.js';

export const MAX_DESCRIPTION = 10_000;

const distinct = <T>(what: string) => v.check<T[], string>((items) => new Set(items).size === items.length, `must not repeat a ${what}`);

const countryList = () => v.pipe(v.array(knownId(countries, 'country id'), 'must be an array of country ids'), v.nonEmpty('must not be empty'), distinct('country'));
const taxList = () => v.pipe(v.array(knownId(taxes, 'tax id'), 'must be an array of tax ids'), v.nonEmpty('must not be empty'), distinct('tax'));

const distinctLocales = <T extends { locale: string }>() =>
  v.check<T[], string>((entries) => new Set(entries.map((e) => e.locale)).size === entries.length, 'must not repeat a locale');

export const TaxRuleCreate = v.strictObject({
  country: countryList(),
  tax: taxList(),
  i18n: v.pipe(
    v.array(v.strictObject({ locale: locale(), title: requiredText(), description: v.optional(text(MAX_DESCRIPTION)) }), 'must be an array'),
    v.nonEmpty('must not be empty'),
    distinctLocales(),
  ),
  default: v.optional(flag()),
});

export const TaxRuleUpdate = v.pipe(
  v.strictObject({
    id: integer(1),
    country: v.optional(countryList()),
    tax: v.optional(taxList()),
    i18n: v.optional(
      v.pipe(
        v.array(v.strictObject({ locale: locale(), title: v.optional(requiredText()), description: v.optional(text(MAX_DESCRIPTION)) }), 'must be an array'),
        v.nonEmpty('must not be empty'),
        distinctLocales(),
      ),
    ),
    default: v.optional(flag()),
  }),
  v.check((body) => Object.keys(body).length > 1, 'has nothing to update: send id and at least one field to change'),
);

export const TaxRuleListQuery = listQuery(['id', 'id_reverse', 'alpha', 'alpha_reverse'], {});
export const TaxRuleQuery = langQuery();

export type TaxRuleCreateInput = v.InferOutput<typeof TaxRuleCreate>;
export type TaxRuleUpdateInput = v.InferOutput<typeof TaxRuleUpdate>;
export type TaxRuleListInput = v.InferOutput<typeof TaxRuleListQuery>;
