/**
 * The paging parameters every list takes (docs/lists.md), besides its own order and filters:
 * limit (1–100, default 10), offset (0–10 000) and cursor. Unknown parameters are ignored (Thelia
 * clients send `sign` on every request).
 */
import * as v from 'valibot';
import { integer } from '../validation.js';

export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;

export const PagingQuery = v.object({
  limit: v.optional(v.pipe(integer(1), v.maxValue(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)), 10),
  offset: v.optional(v.pipe(integer(0), v.maxValue(MAX_OFFSET, `must be at most ${MAX_OFFSET}`)), 0),
  cursor: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
});

export const PAGING_PARAMETERS: ReadonlySet<string> = new Set(Object.keys(PagingQuery.entries));
