/**
 * Loop rows, Thelia style: arrays of objects with UPPERCASE keys, each ending with LOOP_COUNT
 * (1-based position in the response) and LOOP_TOTAL (rows in the response); and the headers of a
 * list page: `X-Total-Count`, and the next page's signed cursor in `X-Next-Cursor` and `Link`.
 */
import type { Page } from '../db/page.js';
import { LIMITS } from '../limits.js';
import type { Row } from '../row.js';
import { encodeCursor } from './cursor.js';

export type LoopRow = Row & { LOOP_COUNT: number; LOOP_TOTAL: number };

export const toLoop = (rows: readonly Row[]): LoopRow[] => rows.map((row, i) => ({ ...row, LOOP_COUNT: i + 1, LOOP_TOTAL: rows.length }));

export interface PageLink {
  /** What the cursor is bound to (see cursor.ts). */
  scope: string;
  path: string;
  /** The query parameters that define the list, as the client sent them (not limit/offset/cursor/sign). */
  query: URLSearchParams;
  limit: number;
}

export async function pageHeaders(page: Page<unknown>, link: PageLink): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (page.total !== undefined) headers['X-Total-Count'] = String(page.total);
  if (page.next) {
    const cursor = await encodeCursor(link.scope, page.next);
    const params = new URLSearchParams(link.query);
    params.set('limit', String(link.limit));
    params.set('cursor', cursor);
    headers['X-Next-Cursor'] = cursor;
    headers.Link = `<${link.path}?${params}>; rel="next"`;
  }
  return headers;
}

/** What the answer's status line, headers and envelope may take besides the body (the cursor and Link included). */
const ENVELOPE_BYTES = 16 * 1024;

/**
 * The first rows of a page whose answer stays within what a Lambda may return (CONTRACT §1): the
 * body travels as a JSON string inside the invocation's answer, so each byte that JSON escapes
 * (quotes, backslashes, line breaks) counts twice. A page cut short continues after its last row kept.
 */
export function rowsThatFit(rows: readonly Row[], limit = LIMITS.lambda.responseBytes - ENVELOPE_BYTES): number {
  let bytes = 2;
  for (const [i, row] of rows.entries()) {
    // The row as the body holds it, numbered as the largest page would number it, then escaped once more.
    const numbered = JSON.stringify({ ...row, LOOP_COUNT: rows.length, LOOP_TOTAL: rows.length });
    bytes += Buffer.byteLength(JSON.stringify(numbered), 'utf8') - 2 + 1;
    if (bytes > limit) return i;
  }
  return rows.length;
}

/** The page as it can be answered: its first rows that fit, continuing after the last one kept. */
export function fittingPage<T extends Row>(page: Page<T>): Page<T> {
  const count = rowsThatFit(page.items);
  if (count === page.items.length) return page;
  const position = page.positions?.[count - 1];
  if (!position) throw new Error('a page too large for one answer must say where each row ends');
  return { ...page, items: page.items.slice(0, count), positions: page.positions?.slice(0, count), next: position };
}
