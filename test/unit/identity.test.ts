import { describe, expect, it } from 'vitest';
import { boundedKeyPart, sortablePrefix } from '../../lib/db/keys.js';
import { hasDefaultIgnorable, identityOf } from '../../lib/identity.js';

describe('identityOf', () => {
  it('makes texts a person reads as one equal: normalization forms, case folding, compatibility forms', () => {
    const same: Array<[string, string]> = [
      ['Cafe\u0301', 'CAF\u00c9'], ['straße', 'STRASSE'], ['ſ', 's'], ['ΟΔΟΣ', 'οδοσ'], ['ﬁ', 'FI'],
      ['Ｗｉｄｅ', 'wide'], ['ǅ', 'dž'], ['K', 'k'], ['a\u00adb', 'ab'], ['a\u200bb', 'AB'],
    ];
    for (const [a, b] of same) expect(identityOf(a), `${a} / ${b}`).toBe(identityOf(b));
  });

  it('keeps texts apart that read differently', () => {
    for (const [a, b] of [['a', 'b'], ['resume', 'résumé'], ['1', 'l'], ['o', '0']] as const) expect(identityOf(a)).not.toBe(identityOf(b));
  });

  it('finds default-ignorable characters', () => {
    for (const c of ['\u200B', '\u00AD', '\uFEFF', '\uFE0F', '\u2060', '\u200D']) expect(hasDefaultIgnorable(`a${c}b`)).toBe(true);
    expect(hasDefaultIgnorable('plain-REF_1')).toBe(false);
  });
});

describe('key parts', () => {
  it('keep a value that fits, and stand for a longer one by a digest that no validated text equals', () => {
    expect(boundedKeyPart('abc', 10)).toBe('abc');
    const long = boundedKeyPart('x'.repeat(11), 10);
    expect(long).toMatch(/^\u0000sha256:/);
    expect(boundedKeyPart('x'.repeat(11), 10)).toBe(long);
    expect(boundedKeyPart('y'.repeat(11), 10)).not.toBe(long);
  });

  it('cut sort texts between characters, within the bytes given', () => {
    expect(sortablePrefix('😀😀😀', 9)).toBe('😀😀');
    expect(sortablePrefix('éé', 3)).toBe('é');
    expect(sortablePrefix('short', 100)).toBe('short');
  });
});
