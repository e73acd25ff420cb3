/** Tax-rule items and their loop rows. */
import { flag, type LoopRow } from '../db/loop.js';
import { keys } from '../db/keys.js';
import { translate, type I18n } from '../i18n.js';

export type TaxRuleText = 'title' | 'description';

export interface TaxRuleItem {
  id: number;
  countries: number[];
  /** Tax ids in application order. */
  taxes: number[];
  i18n: I18n<TaxRuleText>;
  isDefault: boolean;
  /** How many products use the rule: a used rule cannot be deleted. */
  productCount?: number;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export const TEXT_FIELDS: readonly TaxRuleText[] = ['title', 'description'];

export const toItem = (rule: TaxRuleItem) => ({ ...keys.taxRule(rule.id), ...rule });

export function fromItem(item: Record<string, unknown>): TaxRuleItem {
  const { pk: _pk, sk: _sk, ...rule } = item;
  return rule as unknown as TaxRuleItem;
}

export function toRow(rule: TaxRuleItem, locale: string): LoopRow {
  const { translated, texts } = translate(rule.i18n, locale, TEXT_FIELDS);
  return {
    ID: rule.id,
    LOCALE: locale,
    IS_TRANSLATED: flag(translated),
    TITLE: texts.title,
    DESCRIPTION: texts.description,
    IS_DEFAULT: flag(rule.isDefault),
    COUNTRIES: rule.countries,
    TAXES: rule.taxes,
    VERSION: rule.version,
    CREATE_DATE: rule.createdAt,
    UPDATE_DATE: rule.updatedAt,
  };
}
