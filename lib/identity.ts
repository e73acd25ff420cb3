/**
 * One identity per text (docs/api.md). Identifiers that must be unique (a product's ref, a customer's
 * email) are compared in a form where two texts a person reads as the same are equal: NFKC, then
 * full case folding, then NFKC again (Unicode's NFKC_Casefold, without its table): `straße` =
 * `STRASSE` = `ẞ`, `ſ` = `s`, `ΟΔΟΣ` = `οδος`, `ﬁ` = `fi`, NFD = NFC. JavaScript has no case folding
 * of its own; upper then lower case, twice, holds every pair of Unicode's full case folding equal
 * (test/unit/identity.test.ts checks them all against the Unicode 17 tables), and also the dotless
 * ı (U+0131) and i: one more pair held equal, never one fewer.
 * Default-ignorable characters (zero-width, soft hyphen, BOM, variation selectors) are dropped, so
 * that a filter finds a record however they were typed into it.
 */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** Upper then lower case, twice: the capital sharp s (ẞ) lowers to ß, which only a second round takes to ss. */
const caseFolded = (text: string): string => text.toUpperCase().toLowerCase().toUpperCase().toLowerCase();

export function identityOf(text: string): string {
  return caseFolded(text.normalize('NFKC')).normalize('NFKC').replace(DEFAULT_IGNORABLE, '');
}

/** Whether a text holds a default-ignorable character: an identifier may not (it would look like another). */
export const hasDefaultIgnorable = (text: string): boolean => new RegExp(DEFAULT_IGNORABLE.source, 'u').test(text);
