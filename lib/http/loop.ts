/**
 * Loop rows, Thelia style: arrays of objects with UPPERCASE keys, each ending with LOOP_COUNT
 * (1-based position in the response) and LOOP_TOTAL (rows in the response); and the headers of a
 * list page: `X-Total-Count`, and the next page's signed cursor in `X-Next-Cursor` and `Link`.
 */
import type { Page } from '../db/page.js';
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
