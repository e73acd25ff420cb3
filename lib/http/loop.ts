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
const BODY_BYTES = LIMITS.lambda.responseBytes - ENVELOPE_BYTES;

/** A body's bytes in the invocation's answer, where it travels as a JSON string: what JSON escapes counts twice. */
const bytesInAnswer = (json: string): number => Buffer.byteLength(JSON.stringify(json), 'utf8');

/** How many of the first rows fit in `limit` bytes of the answer, each numbered as the largest page would number it. */
function rowsThatFit(rows: readonly Row[], limit = BODY_BYTES): number {
  let bytes = 2;
  for (const [i, row] of rows.entries()) {
    bytes += bytesInAnswer(JSON.stringify({ ...row, LOOP_COUNT: rows.length, LOOP_TOTAL: rows.length })) - 2 + 1;
    if (bytes > limit) return i;
  }
  return rows.length;
}

/**
 * A page's body of loop rows, within what a Lambda may return (docs/conventions.md): a page whose answer
 * would pass 6 MB keeps its first rows that fit and continues after the last one kept. The common
 * page is serialized once; only one too large is measured row by row.
 */
export function loopBody<T extends Row>(page: Page<T>): { page: Page<T>; body: string } {
  const body = JSON.stringify(toLoop(page.items));
  if (bytesInAnswer(body) <= BODY_BYTES) return { page, body };
  const count = rowsThatFit(page.items);
  const position = page.positions?.[count - 1];
  if (!position) throw new Error('a page too large for one answer must say where each row ends');
  const cut = { ...page, items: page.items.slice(0, count), positions: page.positions?.slice(0, count), next: position };
  return { page: cut, body: JSON.stringify(toLoop(cut.items)) };
}
