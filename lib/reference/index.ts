/**
 * The reference data of a fresh Thelia install (our own copy, from shared/reference-data):
 * languages, customer titles, currencies, countries with zip formats, taxes with rates and the two
 * default tax rules. Ids sent by clients are validated against it in memory; the setup also loads it
 * into the table (lib/db/setup.ts) so that the table is self-describing.
 */
import langsJson from './data/langs.json' with { type: 'json' };
import titlesJson from './data/titles.json' with { type: 'json' };
import currenciesJson from './data/currencies.json' with { type: 'json' };
import countriesJson from './data/countries.json' with { type: 'json' };
import taxesJson from './data/taxes.json' with { type: 'json' };
import taxRulesJson from './data/tax-rules.json' with { type: 'json' };

export interface Lang {
  id: number;
  title: string;
  code: string;
  locale: string;
  byDefault: boolean;
}

export interface Country {
  id: number;
  isoalpha2: string;
  zipCodeFormat: string | null;
}

export interface Tax {
  id: number;
  /** Percent rate as a decimal string, e.g. "20". */
  percent: string;
}

export interface SeedTaxRule {
  id: number;
  isDefault: boolean;
  i18n: Record<string, { title: string | null; description: string | null }>;
  countryTaxes: Array<{ country: number; tax: number; position: number }>;
}

export const langs: readonly Lang[] = langsJson;
export const defaultLang: Lang = langs.find((l) => l.byDefault)!;
export const langByLocale = new Map(langs.map((l) => [l.locale, l]));
export const langById = new Map(langs.map((l) => [l.id, l]));

export const titleIds = new Set(titlesJson.map((t) => t.id));
export const currencyIds = new Set(currenciesJson.map((c) => c.id));
export const countries = new Map<number, Country>(
  countriesJson.map((c) => [c.id, { id: c.id, isoalpha2: c.isoalpha2, zipCodeFormat: c.zipCodeFormat }]),
);
export const taxes = new Map<number, Tax>(taxesJson.map((t) => [t.id, { id: t.id, percent: t.requirements.percent }]));

/** The shop's country: taxed prices are computed for it (CONTRACT §4). */
export const defaultCountryId: number = countriesJson.find((c) => c.byDefault)!.id;

export const seedTaxRules: readonly SeedTaxRule[] = taxRulesJson;

/** Every reference record, by kind, as loaded into the table. */
export const referenceRecords = {
  LANG: langsJson,
  TITLE: titlesJson,
  CURRENCY: currenciesJson,
  COUNTRY: countriesJson,
  TAX: taxesJson,
} as const;

/**
 * Thelia's zip-code formats: N a digit, L a letter, C the country's ISO alpha-2 code, anything else
 * itself. A country without a format accepts any zip code.
 */
export function zipCodeMatches(country: Country, zipcode: string): boolean {
  if (!country.zipCodeFormat) return true;
  const pattern = [...country.zipCodeFormat]
    .map((ch) => (ch === 'N' ? '\\d' : ch === 'L' ? '[A-Za-z]' : ch === 'C' ? country.isoalpha2 : ch.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`, 'i').test(zipcode);
}

/** A `lang` query value: a locale like fr_FR or a language id. */
export function findLang(value: string): Lang | undefined {
  return /^\d+$/.test(value) ? langById.get(Number(value)) : langByLocale.get(value);
}
