import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { countries, defaultCountryId, defaultLang, findLang, zipCodeMatches } from '../../lib/reference/index.js';
import { runtimeFile } from '../../lib/reference/generate.js';
import { referenceRecords, runtimeProjection } from '../../lib/reference/records.js';

const country = (id: number) => countries.get(id)!;

describe('reference data', () => {
  it('bundles a projection that is up to date with the whole data (npm run reference)', () => {
    expect(JSON.parse(readFileSync(runtimeFile, 'utf8'))).toEqual(runtimeProjection());
    expect(countries.size).toBe(referenceRecords.COUNTRY.length);
  });

  it('knows the defaults of a fresh Thelia install', () => {
    expect(defaultLang).toMatchObject({ id: 2, locale: 'en_US' });
    expect(defaultCountryId).toBe(64);
  });

  it('finds languages by locale or by id', () => {
    expect(findLang('fr_FR')?.id).toBe(1);
    expect(findLang('3')?.locale).toBe('es_ES');
    expect(findLang('xx_XX')).toBeUndefined();
    expect(findLang('99')).toBeUndefined();
  });

  it("checks zip codes against Thelia's formats: N digit, L letter, C the country code", () => {
    expect(zipCodeMatches(country(64), '75001')).toBe(true); // NNNNN
    expect(zipCodeMatches(country(64), '7500')).toBe(false);
    expect(zipCodeMatches(country(64), '7500A')).toBe(false);
    expect(zipCodeMatches(country(246), 'k1a 0b1')).toBe(true); // Canada, LNL NLN
    expect(zipCodeMatches(country(246), 'K1A0B1')).toBe(false);
    const withCode = [...countries.values()].find((c) => c.zipCodeFormat === 'CNNNN')!;
    expect(zipCodeMatches(withCode, `${withCode.isoalpha2}1234`)).toBe(true);
    expect(zipCodeMatches(withCode, '1234')).toBe(false);
    expect(zipCodeMatches(country(75), 'anything at all')).toBe(true); // no format
  });
});
