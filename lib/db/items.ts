import { BatchGetCommand, GetCommand, type BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import type { Key } from './keys.js';

type Item = Record<string, unknown>;

/** One item, read consistently: a write just made is always seen. */
export async function readItem(key: Key): Promise<Item | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return result.Item;
}

/**
 * Items by key in one BatchGet (up to 100 keys), read consistently, in no particular order. Keys
 * DynamoDB leaves unprocessed (throttling) are asked again: a missing item always means "absent".
 */
export async function readItems(keys: readonly Key[]): Promise<Item[]> {
  const items: Item[] = [];
  let request: BatchGetCommandInput['RequestItems'] = keys.length ? { [tableName()]: { Keys: [...keys], ConsistentRead: true } } : undefined;
  while (request && Object.keys(request).length) {
    const result = await db().send(new BatchGetCommand({ RequestItems: request }));
    items.push(...(result.Responses?.[tableName()] ?? []));
    request = result.UnprocessedKeys as BatchGetCommandInput['RequestItems'];
  }
  return items;
}
