/** Key shapes shared by the declarations (see table.ts for the layout). */
export type Key = { pk: string; sk: string };

/** Ids are zero-padded in sort keys so that string order is numeric order (2^53 has 16 digits). */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * Sort-key sentinels that order before and after any value we store (names have no control
 * characters, see lib/validation.ts), so that a list's counter items sit at both ends of it.
 */
export const SORT_FIRST = '\u0001';
export const SORT_LAST = '\u{10FFFF}';
