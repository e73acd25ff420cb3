/**
 * A collection's summaries (CollectionDeclaration): beside each record, a small item of what sorting
 * the set needs, under the summaries' prefix, written in the record's own transactions; read whole,
 * consistently, by a list that then reads only its page's records.
 */
import { queryAll, type Item } from './items.js';
import type { Key } from './keys.js';
import { put, remove, type WriteStep } from './transactions.js';
import type { CollectionDeclaration, Id } from './entity-declaration.js';
import { isDeepStrictEqual } from 'node:util';

export function summariesOf<R, I extends Id>(entity: { name: string; id: (record: R) => I; key: (id: I) => Key; collection: CollectionDeclaration<R> | undefined }) {
  const { name, id, key, collection } = entity;
  const summary = collection?.summary && { ...collection.summary, partition: collection.partition, recordPrefix: collection.sortPrefix };
  type Summaries = NonNullable<typeof summary>;
  /** The key of a record's summary: the record's own sort key, under the summaries' prefix. */
  const summaryKey = (summaries: Summaries, recordId: I): Key => ({ pk: summaries.partition, sk: `${summaries.sortPrefix}${key(recordId).sk.slice(summaries.recordPrefix.length)}` });
  /** The step that writes a record's summary (a put: it is derived, whatever was there). */
  const writing = (record: R): WriteStep[] => (summary ? [put({ ...summaryKey(summary, id(record)), id: id(record), ...summary.fields(record) })] : []);

  return {
    writing,
    /** A replace's step: the summary written again when what it holds changed. */
    rewriting: (current: R, next: R): WriteStep[] => (summary && !isDeepStrictEqual(summary.fields(current), summary.fields(next)) ? writing(next) : []),
    removing: (record: R): WriteStep[] => (summary ? [remove(summaryKey(summary, id(record)))] : []),

    /** Every record's summary (its `fields` and its id), read consistently. */
    async readSummaries(): Promise<Item[]> {
      if (!summary) throw new Error(`${name} keeps no summaries`);
      return queryAll({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': summary.partition, ':prefix': summary.sortPrefix },
        ConsistentRead: true,
      });
    },
  };
}
