/**
 * A log of attempts kept beside what they were for, newest first: each attempt an item
 * `<pk> / <prefix><time>#<id>` that expires after `keepDays`. Knows no resource: webhooks' delivery
 * attempts are its first entries.
 */
import { queryPage, type Item } from './items.js';
import { table } from './table.js';
import { put, type WriteStep } from './transactions.js';

export interface AttemptLogDeclaration {
  /** The sort key's prefix, under the partition of what the attempts were for. */
  prefix: string;
  keepDays: number;
}

export function defineAttemptLog(log: AttemptLogDeclaration) {
  return {
    /** The step that records an attempt made at `at` (ISO time), named `id` within that time. */
    append: (pk: string, at: string, id: string, attributes: Item): WriteStep =>
      put({ pk, sk: `${log.prefix}${at}#${id}`, ...attributes, [table.ttlAttribute]: Math.floor(Date.parse(at) / 1000) + log.keepDays * 86_400 }),

    /** The latest attempts under `pk`, newest first. */
    latest: async (pk: string, limit: number): Promise<Item[]> =>
      (
        await queryPage({
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': log.prefix },
          ScanIndexForward: false,
          Limit: limit,
        })
      ).items,
  };
}
