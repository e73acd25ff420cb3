/**
 * Loop rows, Thelia style: arrays of objects with UPPERCASE keys, each ending with LOOP_COUNT
 * (1-based position in the response) and LOOP_TOTAL (rows in the response). Every resource turns its
 * items into rows through this module and pages its lists through `queryList` (paging.ts).
 */
export type LoopValue = string | number | number[];
export type LoopRow = Record<string, LoopValue>;

/** What an operation returns for the HTTP layer to send: rows plus list headers. */
export interface LoopResult {
  rows: LoopRow[];
  headers?: Record<string, string>;
}

export function toLoop(rows: LoopRow[], headers?: Record<string, string>): LoopResult {
  return {
    rows: rows.map((row, i) => ({ ...row, LOOP_COUNT: i + 1, LOOP_TOTAL: rows.length })),
    ...(headers ? { headers } : {}),
  };
}

/** 0/1 flags are JSON integers in rows. */
export const flag = (value: boolean | undefined): number => (value ? 1 : 0);
