import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import type { Key } from './keys.js';

/** One item, read consistently: a write just made is always seen. */
export async function readItem(key: Key): Promise<Record<string, unknown> | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return result.Item;
}
