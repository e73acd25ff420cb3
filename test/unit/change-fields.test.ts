import { describe, expect, it } from 'vitest';
import { diffFields, localizedFields, type ChangeField } from '../../lib/db/changes.js';

const fields = (values: Record<string, unknown>, extra: ChangeField[] = []): ChangeField[] => [...Object.entries(values).map(([field, value]) => ({ field, locale: null, value })), ...extra];

describe('the fields of a change', () => {
  it('lists every field a record holds on create (before null) and delete (after null), none it does not hold', () => {
    const record = fields({ REF: 'A', PRICE: '1.000000', REVOKED_AT: undefined });
    expect(diffFields(undefined, record)).toEqual([
      { field: 'REF', locale: null, before: null, after: 'A' },
      { field: 'PRICE', locale: null, before: null, after: '1.000000' },
    ]);
    expect(diffFields(record, undefined)).toEqual([
      { field: 'REF', locale: null, before: 'A', after: null },
      { field: 'PRICE', locale: null, before: '1.000000', after: null },
    ]);
  });

  it('lists on update exactly the fields whose value changed, arrays and objects compared by value', () => {
    const before = fields({ COUNTRIES: [64, 13], GRANTS: { product: ['VIEW'] }, TITLE: 'x' });
    const after = fields({ COUNTRIES: [64, 13], GRANTS: { product: ['VIEW', 'CREATE'] }, TITLE: 'x' });
    expect(diffFields(before, after)).toEqual([{ field: 'GRANTS', locale: null, before: { product: ['VIEW'] }, after: { product: ['VIEW', 'CREATE'] } }]);
    expect(diffFields(before, before)).toEqual([]);
  });

  it('shows a secret field that changed with null on both sides, and one that did not not at all', () => {
    const secret = (value: string): ChangeField[] => [{ field: 'PASSWORD', locale: null, value, secret: true }];
    expect(diffFields(secret('$argon2id$one'), secret('$argon2id$two'))).toEqual([{ field: 'PASSWORD', locale: null, before: null, after: null }]);
    expect(diffFields(secret('$argon2id$one'), secret('$argon2id$one'))).toEqual([]);
  });

  it("names localized texts per locale, each once, and a locale's text removed after the others", () => {
    const en = localizedFields({ en_US: { title: 'Lamp', description: undefined } }, ['title', 'description']);
    const both = localizedFields({ fr_FR: { title: 'Lampe' }, en_US: { title: 'Lamp' } }, ['title', 'description']);
    expect(both.map((f) => [f.field, f.locale])).toEqual([
      ['TITLE', 'en_US'],
      ['TITLE', 'fr_FR'],
    ]);
    expect(diffFields(en, both)).toEqual([{ field: 'TITLE', locale: 'fr_FR', before: null, after: 'Lampe' }]);
    expect(diffFields(both, en)).toEqual([{ field: 'TITLE', locale: 'fr_FR', before: 'Lampe', after: null }]);
  });
});
