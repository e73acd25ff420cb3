/**
 * What the data layer keeps besides entities (changes and their markers, the feed's items and tail,
 * jobs, delivery log entries, lane cursors, summaries), declared as entities are: an item's
 * attributes as a valibot schema, by which every item read is parsed, so that no reader decodes an
 * attribute by hand and an item that is not as declared says so, naming it. The item's key and TTL
 * attributes ride along (a loose object).
 */
import { table } from './table.js';
import * as v from 'valibot';
import type { Item } from './items.js';

export class StoredItemMalformed extends Error {
  constructor(what: string, issues: readonly v.BaseIssue<unknown>[]) {
    super(`a stored ${what} is not as declared: ${issues.map((issue) => `${issue.path?.map((item) => String(item.key)).join('.') ?? ''} ${issue.message}`.trim()).join('; ')}`);
    this.name = 'StoredItemMalformed';
  }
}

export function defineStored<Entries extends v.ObjectEntries>(what: string, entries: Entries) {
  const schema = v.looseObject(entries);
  return {
    what,
    /** The item as its declaration reads it. */
    parse(item: Item): v.InferOutput<typeof schema> {
      const parsed = v.safeParse(schema, item);
      if (!parsed.success) throw new StoredItemMalformed(what, parsed.issues);
      return parsed.output;
    },
  };
}

/** The TTL attribute (table.ts) of an item that expires: when DynamoDB may delete it, in epoch seconds. */
const StoredExpiry = defineStored('expiring item', { [table.ttlAttribute]: v.optional(v.number()) });
export const expiresAtOf = (item: Item): number | undefined => StoredExpiry.parse(item)[table.ttlAttribute];

/** A key, as items that name another item hold it. */
export const StoredKey = v.object({ pk: v.string(), sk: v.string() });
