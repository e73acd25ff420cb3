/**
 * The reference data of a fresh Thelia install, whole (our own copy, from shared/reference-data):
 * what the table setup loads, and what the runtime projection (runtime.json) is made from. Tooling
 * only: a Lambda bundles the projection (index.ts), never these files.
 */
import langsJson from './data/langs.json' with { type: 'json' };
import titlesJson from './data/titles.json' with { type: 'json' };
import currenciesJson from './data/currencies.json' with { type: 'json' };
import countriesJson from './data/countries.json' with { type: 'json' };
import taxesJson from './data/taxes.json' with { type: 'json' };
import taxRulesJson from './data/tax-rules.json' with { type: 'json' };

export interface SeedTaxRule {
  id: number;
  isDefault: boolean;
  i18n: Record<string, { title: string | null; description: string | null }>;
  countryTaxes: Array<{ country: number; tax: number; position: number }>;
}

/** Every reference record, by kind, as loaded into the table. */
export const referenceRecords = {
  LANG: langsJson,
  TITLE: titlesJson,
  CURRENCY: currenciesJson,
  COUNTRY: countriesJson,
  TAX: taxesJson,
} as const;

export const seedTaxRules: readonly SeedTaxRule[] = taxRulesJson;

/** What requests need of the reference data: ids to validate, zip formats, tax rates, the defaults. */
export function runtimeProjection() {
  return {
    langs: langsJson.map(({ id, title, code, locale, byDefault }) => ({ id, title, code, locale, byDefault })),
    titleIds: titlesJson.map((t) => t.id),
    currencyIds: currenciesJson.map((c) => c.id),
    /** [id, ISO alpha-2, zip code format] */
    countries: countriesJson.map((c) => [c.id, c.isoalpha2, c.zipCodeFormat] as const),
    defaultCountryId: countriesJson.find((c) => c.byDefault)!.id,
    /** [id, percent rate] */
    taxes: taxesJson.map((t) => [t.id, t.requirements.percent] as const),
  };
}

export type RuntimeReference = ReturnType<typeof runtimeProjection>;
