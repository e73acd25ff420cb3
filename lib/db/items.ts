/** Plain reads, shared by the entities, pointers and stores of this layer. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, TransactGetCommand, type BatchGetCommandInput, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { WriteConflict } from './errors.js';
import type { Key } from './keys.js';

import type { Item } from './step.js';

export type { Item };

/** One item, read consistently: a write just made is always seen. */
export async function readItem(key: Key): Promise<Item | undefined> {
  const result = await request((db, options) => db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }), options));
  return result.Item;
}

/** Keys one BatchGet takes. */
const BATCH_GET_KEYS = 100;

/**
 * Items by key, read consistently, in no particular order: one BatchGet per 100 keys. Keys DynamoDB
 * leaves unprocessed (throttling) are asked again: a missing item always means "absent".
 */
export async function readItems(keys: readonly Key[]): Promise<Item[]> {
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
