/** A tax rule's loop row (docs/conventions.md). */
import { translate } from '../i18n.js';
import { bit, type Row } from '../row.js';
import { TEXT_FIELDS, type TaxRule } from './entity.js';

export function taxRuleRow(rule: TaxRule, locale: string): Row {
  const { translated, texts } = translate(rule.i18n, locale, TEXT_FIELDS);
  return {
    ID: rule.id,
    LOCALE: locale,
    IS_TRANSLATED: bit(translated),
    TITLE: texts.title,
    DESCRIPTION: texts.description,
    IS_DEFAULT: bit(rule.isDefault),
    COUNTRIES: rule.countries,
    TAXES: rule.taxes,
    VERSION: rule.version,
    CREATE_DATE: rule.createdAt,
    UPDATE_DATE: rule.updatedAt,
  };
}
