/**
 * Jobs due at a time, kept in the table: each job is an item of its own key (so a job is queued
 * once), indexed by its due time in its lane's index partition (`<name>#<lane>`). Lanes are the
 * caller's: a worker asks what is due in one lane, so that one lane's backlog never stands before
 * another's jobs. A worker claims jobs by moving their due time forward on condition that it has not
 * moved (one worker wins), works them, then completes or reschedules each, on condition that its
 * claim still holds. Knows no resource: webhooks' deliveries are its first jobs.
 */
import { queryPage, type Item } from './items.js';
import type { Key } from './keys.js';
import { table, type IndexName } from './table.js';
import { holds, patchStep, put, remove, type OnConditionFailed, type WriteStep } from './transactions.js';

const padTime = (ms: number) => String(Math.max(0, Math.round(ms))).padStart(15, '0');

export interface QueueDeclaration {
  /** The index partitions' prefix: `<name>#<lane>`. */
  name: string;
  index: IndexName;
}

export function defineDueQueue(queue: QueueDeclaration) {
  const { partitionKey, sortKey } = table.indexes[queue.index];
  const partition = (lane: string) => `${queue.name}#${lane}`;
  const indexed = (key: Key, lane: string, dueAt: number) => ({ dueAt, lane, [partitionKey]: partition(lane), [sortKey]: `${padTime(dueAt)}#${key.pk}#${key.sk}` });
  const keyOf = (job: Item): Key => ({ pk: String(job.pk), sk: String(job.sk) });

  /** Jobs of a lane due by `now`, oldest first (the index is eventually consistent: a job may show a moment late). */
  const due = async (lane: string, now: number, limit: number): Promise<Item[]> =>
    (
      await queryPage({
        IndexName: queue.index,
        KeyConditionExpression: '#pk = :pk AND #sk <= :now',
        ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
        ExpressionAttributeValues: { ':pk': partition(lane), ':now': `${padTime(now)}#\uffff` },
        Limit: limit,
      })
    ).items;

  return {
    /** The step that queues a job in a lane (replacing one of the same key, when `onlyIfAbsent` does not say otherwise). */
    enqueue: (key: Key, lane: string, dueAt: number, attributes: Item, onlyIfAbsent?: OnConditionFailed): WriteStep =>
      put({ ...key, ...attributes, ...indexed(key, lane, dueAt) }, onlyIfAbsent ? { expression: 'attribute_not_exists(pk)' } : undefined, onlyIfAbsent),

    due,

    /** When the next job of these lanes is due, if any is queued. */
    async nextDue(lanes: readonly string[]): Promise<number | undefined> {
      const firsts = (await Promise.all(lanes.map((lane) => due(lane, Number.MAX_SAFE_INTEGER, 1)))).flat();
      return firsts.length ? Math.min(...firsts.map((job) => Number(job.dueAt))) : undefined;
    },

    /** The step that moves a job's due time (a claim, or a retry), with more attributes, while it is still due when read. */
    reschedule: (job: Item, dueAt: number, attributes: Item, onMoved: OnConditionFailed): WriteStep =>
      patchStep(keyOf(job), { set: { ...attributes, ...indexed(keyOf(job), String(job.lane), dueAt) }, when: { dueAt: job.dueAt } }, onMoved),

    /** The step that removes a job whose claim still holds. */
    complete: (job: Item, onMoved: OnConditionFailed): WriteStep => remove(keyOf(job), holds('dueAt', job.dueAt), onMoved),
  };
}
