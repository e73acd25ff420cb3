/**
 * The tax rules of a fresh Thelia install (reference data), as records: what `npm start` seeds a new
 * table with, and what a store's import recognizes as a seed it may take the place of. Tooling: it
 * reads the whole reference data, which no Lambda bundles.
 */
import type { I18n } from '../i18n.js';
import { seedTaxRules } from '../reference/records.js';
import type { TaxRule, TaxRuleText } from './entity.js';

/** The tax rules of a fresh Thelia install, as records. */
export function seededTaxRules(now: string): TaxRule[] {
  return seedTaxRules.map((seed) => {
    const i18n: I18n<TaxRuleText> = {};
    for (const [locale, texts] of Object.entries(seed.i18n)) {
      if (texts.title) i18n[locale] = { title: texts.title, ...(texts.description ? { description: texts.description } : {}) };
    }
    const ordered = [...seed.countryTaxes].sort((a, b) => a.position - b.position);
    return {
      id: seed.id,
      countries: [...new Set(ordered.map((ct) => ct.country))],
      taxes: [...new Set(ordered.map((ct) => ct.tax))],
      i18n,
      isDefault: seed.isDefault,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
  });
}
