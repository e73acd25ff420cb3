/**
 * Jobs due at a time, kept in the table: each job is an item of its own key (so a job is queued
 * once), indexed by its due time in one of a few index partitions. A worker asks what is due, claims
 * a job by moving its due time forward on condition that it has not moved (one worker wins), works
 * it, then completes it or reschedules it, on condition that its claim still holds. Knows no
 * resource: webhooks' deliveries are its first jobs.
 */
import { queryPage, type Item } from './items.js';
import { shardOf, type Key } from './keys.js';
import { table, type IndexName } from './table.js';
import { holds, patchStep, put, remove, type OnConditionFailed, type WriteStep } from './transactions.js';

const padTime = (ms: number) => String(Math.max(0, Math.round(ms))).padStart(15, '0');

export interface QueueDeclaration {
  /** The index partitions' prefix: `<name>#<shard>`. */
  name: string;
  shards: number;
  index: IndexName;
}

export function defineDueQueue(queue: QueueDeclaration) {
  const { partitionKey, sortKey } = table.indexes[queue.index];
  const indexed = (key: Key, dueAt: number) => ({ dueAt, [partitionKey]: `${queue.name}#${shardOf(`${key.pk}|${key.sk}`, queue.shards)}`, [sortKey]: `${padTime(dueAt)}#${key.pk}#${key.sk}` });
  const keyOf = (job: Item): Key => ({ pk: String(job.pk), sk: String(job.sk) });

  return {
    /** The step that queues a job (replacing one of the same key, when `condition` does not say otherwise). */
    enqueue: (key: Key, dueAt: number, attributes: Item, onlyIfAbsent?: OnConditionFailed): WriteStep =>
      put({ ...key, ...attributes, ...indexed(key, dueAt) }, onlyIfAbsent ? { expression: 'attribute_not_exists(pk)' } : undefined, onlyIfAbsent),

    /** When the next job is due, if any is queued. */
    async nextDue(): Promise<number | undefined> {
      const [first] = await this.due(Number.MAX_SAFE_INTEGER, 1);
      return first === undefined ? undefined : Number(first.dueAt);
    },

    /** Jobs due by `now`, oldest first within each partition (the index is eventually consistent: a job may show a moment late). */
    async due(now: number, limit: number): Promise<Item[]> {
      const partitions = await Promise.all(
        Array.from({ length: queue.shards }, (_, shard) =>
          queryPage({
            IndexName: queue.index,
            KeyConditionExpression: '#pk = :pk AND #sk <= :now',
            ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
            ExpressionAttributeValues: { ':pk': `${queue.name}#${shard}`, ':now': `${padTime(now)}#\uffff` },
            Limit: limit,
          }),
        ),
      );
      return partitions.flatMap((page) => page.items).sort((a, b) => Number(a.dueAt) - Number(b.dueAt)).slice(0, limit);
    },

    /** The step that moves a job's due time (a claim, or a retry), with more attributes, while it is still due when read. */
    reschedule: (job: Item, dueAt: number, attributes: Item, onMoved: OnConditionFailed): WriteStep =>
      patchStep(keyOf(job), { set: { ...attributes, ...indexed(keyOf(job), dueAt) }, when: { dueAt: job.dueAt } }, onMoved),

    /** The step that removes a job whose claim still holds. */
    complete: (job: Item, onMoved: OnConditionFailed): WriteStep => remove(keyOf(job), holds('dueAt', job.dueAt), onMoved),
  };
}
