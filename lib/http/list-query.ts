/**
 * The query parameters every list takes (CONTRACT §5): limit (1–100, default 10), offset (0–10 000),
 * cursor, order (the first of `orders` by default) and lang; plus each list's own filters.
 * Unknown parameters are ignored (Thelia clients send `sign` on every request).
 */
import * as v from 'valibot';
import { integer } from '../validation.js';
import { defaultLang, findLang, type Lang } from '../reference/index.js';

export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;

export const langParam = () =>
  v.optional(
    v.pipe(
      v.string(),
      v.check((value) => findLang(value) !== undefined, 'is not a known language (a locale like fr_FR or a language id)'),
      v.transform((value): Lang => findLang(value)!),
    ),
  );

/** `?lang=` alone, for single reads, creates and updates. */
export const langQuery = () => v.object({ lang: langParam() });

export function listQuery<Order extends string, Filters extends v.ObjectEntries>(orders: readonly [Order, ...Order[]], filters: Filters) {
  return v.object({
    limit: v.optional(v.pipe(integer(1), v.maxValue(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)), 10),
    offset: v.optional(v.pipe(integer(0), v.maxValue(MAX_OFFSET, `must be at most ${MAX_OFFSET}`)), 0),
    cursor: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
    order: v.optional(v.picklist(orders, `must be one of: ${orders.join(', ')}`), orders[0]),
    lang: langParam(),
    ...filters,
  });
}

/** The locale a row is shown in: `lang`, else the given fallback (a create's locale), else the default language. */
export const localeOf = (lang: Lang | undefined, fallback?: string): string => lang?.locale ?? fallback ?? defaultLang.locale;
