/** Plain reads, shared by the entities, pointers and stores of this layer. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, TransactGetCommand, type BatchGetCommandInput, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { WriteConflict } from './errors.js';
import { gatheredPerTurn } from './per-turn.js';
import { keyText, type Key } from './keys.js';

import type { Item } from './step.js';

export type { Item };

/** One item, read consistently: a write just made is always seen. */
export async function readItem(key: Key): Promise<Item | undefined> {
  return (await coalesced([key], true))[0];
}

/**
 * Items by key, read consistently, in no particular order. Keys DynamoDB leaves unprocessed
 * (throttling) are asked again: a missing item always means "absent".
 */
export const readItems = (keys: readonly Key[]): Promise<Item[]> => (keys.length ? coalesced(keys) : Promise.resolve([]));

/** A read asked: its keys, and whether as one item (readItem: alone in its turn, it is one GetItem). */
interface Read {
  keys: readonly Key[];
  single: boolean;
}

/**
 * Reads asked in one turn of the event loop by one piece of work, sent together (per-turn.ts): a
 * batch's rows planned at once, or the reads of a `Promise.all`, cost one BatchGet per 100 distinct
 * keys instead of a call each. One readItem alone in its turn is one GetItem, as before.
 */
const gatheredReads = gatheredPerTurn<Read, Item[]>(async (reads) => {
  const distinct = new Map(reads.flatMap((read) => read.keys.map((key) => [keyText(key), key] as const)));
  const keys = [...distinct.values()];
  const items = reads.length === 1 && reads[0]?.single ? await getOne(keys[0] as Key) : await batchGet(keys);
  const found = new Map(items.map((item) => [keyText(item as Key), item]));
  return reads.map((read) =>
    read.keys.flatMap((key): Item[] => {
      const item = found.get(keyText(key));
      return item ? [item] : [];
    }),
  );
});

const coalesced = (keys: readonly Key[], single = false): Promise<Item[]> => gatheredReads('', { keys, single });

async function getOne(key: Key): Promise<Item[]> {
  const result = await request((db, options) => db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }), options));
  return result.Item ? [result.Item] : [];
}

/** Keys one BatchGet takes. */
const BATCH_GET_KEYS = 100;

/** One BatchGet per 100 keys. */
async function batchGet(keys: readonly Key[]): Promise<Item[]> {
  const items: Item[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    let pending: BatchGetCommandInput['RequestItems'] = { [tableName()]: { Keys: keys.slice(start, start + BATCH_GET_KEYS), ConsistentRead: true } };
    while (pending && Object.keys(pending).length) {
      const input: BatchGetCommandInput['RequestItems'] = pending;
      const result = await request((db, options) => db.send(new BatchGetCommand({ RequestItems: input }), options));
      items.push(...(result.Responses?.[tableName()] ?? []));
      pending = result.UnprocessedKeys as BatchGetCommandInput['RequestItems'];
    }
  }
  return items;
}

/** One page of a query on the table (or one of its indexes): its items, and where the next page starts, if one does. */
export async function queryPage(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ items: Item[]; next: Item | undefined }> {
  const page = await request((db, options) => db.send(new QueryCommand({ ...input, TableName: tableName() }), options));
  return { items: page.Items ?? [], next: page.LastEvaluatedKey };
}

/** A query's items page by page, following DynamoDB's pages: memory is bounded by one page. */
export async function* queryPages(input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'TableName'>): AsyncGenerator<Item[]> {
  let startKey: Item | undefined;
  do {
    const page = await queryPage({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) });
    yield page.items;
    startKey = page.next;
  } while (startKey);
}

/** Every item a query matches, following DynamoDB's pages (for small, bounded sets). */
export async function queryAll(input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'TableName'>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}

/**
 * Items read together in one transactional read: a snapshot of all of them at one moment. DynamoDB
 * cancels it while a transaction is writing one of them: a `WriteConflict`, for the caller's
 * `retryOnConflict` to read again.
 */
export async function readTogether(keys: readonly Key[]): Promise<(Item | undefined)[]> {
  try {
    const result = await request((db, options) => db.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: tableName(), Key } })) }), options));
    return keys.map((_, i) => result.Responses?.[i]?.Item);
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'TransactionConflict')) throw new WriteConflict();
    throw error;
  }
}

/** Items by key in one BatchGet, each in the place of its key (undefined when absent). */
export async function readEach(keys: readonly Key[]): Promise<(Item | undefined)[]> {
  const items = await readItems(keys);
  return keys.map((key) => items.find((item) => item.pk === key.pk && item.sk === key.sk));
}
