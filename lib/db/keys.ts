/** Key shapes shared by the declarations (see table.ts for the layout). */
export type Key = { pk: string; sk: string };

/** Ids are zero-padded in sort keys so that string order is numeric order (2^53 has 16 digits). */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * Index sort keys: every record's starts with RECORD_SORT_PREFIX, and a list's counter items sort
 * before (SORT_FIRST) and after (SORT_LAST) any of them, whatever text follows the prefix (U+10FFFF
 * included): the counters sit at both ends of a list, never among its records.
 */
export const SORT_FIRST = '0';
export const RECORD_SORT_PREFIX = '1';
export const SORT_LAST = '2';
