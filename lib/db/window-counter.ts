/**
 * Counts events per subject within a fixed time window (for example failed login checks per
 * email): the first event opens a window of `seconds`, later ones count into it until it closes.
 * The item expires by itself (DynamoDB TTL); since TTL deletion is lazy, the end is checked too.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import type { Item } from './items.js';
import type { Key } from './keys.js';
import { table } from './table.js';

export interface WindowState {
  count: number;
  /** Seconds until the window closes; 0 when none is open. */
  remainingSeconds: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export function defineWindowCounter(options: { prefix: string; seconds: number }) {
  const key = (subject: string): Key => ({ pk: `${options.prefix}#${subject}`, sk: 'WINDOW' });
  const names = { '#expires': table.ttlAttribute };

  function stateOf(item: Item | undefined): WindowState {
    const remaining = Number(item?.[table.ttlAttribute] ?? 0) - nowSeconds();
    return remaining > 0 ? { count: Number(item?.count ?? 0), remainingSeconds: remaining } : { count: 0, remainingSeconds: 0 };
  }

  return {
    key,
    stateOf,
    /**
     * Counts one event. `seen` is the item as read before (or undefined), so that the usual case
     * costs one write; a race with a concurrent event falls back to the other write.
     */
    async count(subject: string, seen: Item | undefined): Promise<void> {
      const countIntoWindow = () =>
        request((db) =>
          db.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key(subject),
              UpdateExpression: 'ADD #count :one',
              ConditionExpression: '#expires > :now',
              ExpressionAttributeNames: { ...names, '#count': 'count' },
              ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds() },
            }),
          ),
        );
      const openWindow = () =>
        request((db) =>
          db.send(
            new PutCommand({
              TableName: tableName(),
              Item: { ...key(subject), count: 1, [table.ttlAttribute]: nowSeconds() + options.seconds },
              ConditionExpression: 'attribute_not_exists(pk) OR #expires <= :now',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':now': nowSeconds() },
            }),
          ),
        );
      const attempts = stateOf(seen).remainingSeconds > 0 ? [countIntoWindow, openWindow, countIntoWindow] : [openWindow, countIntoWindow, openWindow];
      for (const attempt of attempts) {
        try {
          await attempt();
          return;
        } catch (error) {
          if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        }
      }
    },
  };
}
