/**
 * Rows: what a resource shows of a record, with Thelia's UPPERCASE keys in the contract's order
 * (docs/conventions.md). The HTTP edge (lib/http/loop.ts) numbers them into loop rows.
 */
/** Values a row holds; a change row's CHANGES is a list of objects, a tax's REQUIREMENTS an object of texts. */
export type RowValue = string | number | number[] | string[] | readonly object[] | Readonly<Record<string, string>> | null;
export type Row = Record<string, RowValue>;

/** Booleans are the integers 0 and 1 in rows. */
export const bit = (value: boolean | undefined): 0 | 1 => (value ? 1 : 0);
