/**
 * Counts attempts per subject within a fixed time window (for example login checks per email), and
 * refuses more than `limit` of them: the first attempt opens a window of `seconds`, later ones count
 * into it until it closes. An attempt is reserved atomically before it is made, so that however
 * many arrive at once, at most `limit` get through; one that turns out well may be given back. The
 * item expires by itself (DynamoDB TTL); since TTL deletion is lazy, the window's end is checked too.
 */
import { expiresAtOf } from './stored.js';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import type { Key } from './keys.js';
import { table } from './table.js';
import { conditionally } from './transactions.js';

export type Reservation = { reserved: true } | { reserved: false; retryAfterSeconds: number };

const nowSeconds = () => Math.floor(Date.now() / 1000);
const names = { '#expires': table.ttlAttribute, '#count': 'count' };

export function defineWindowCounter(window: { prefix: string; seconds: number; limit: number }) {
  const key = (subject: string): Key => ({ pk: `${window.prefix}#${subject}`, sk: 'WINDOW' });

  const countIn = (subject: string) =>
    request((db, options) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key(subject),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: '#expires > :now AND #count < :limit',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds(), ':limit': window.limit },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        options,
      ),
    );

  const open = (subject: string) =>
    request((db, options) =>
      db.send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key(subject), count: 1, [table.ttlAttribute]: nowSeconds() + window.seconds },
          ConditionExpression: 'attribute_not_exists(pk) OR #expires <= :now',
          ExpressionAttributeNames: { '#expires': table.ttlAttribute },
          ExpressionAttributeValues: { ':now': nowSeconds() },
        }),
        options,
      ),
    );

  return {
    key,

    /** Counts one attempt in, or says how long until the window that holds `limit` attempts closes. */
    async reserve(subject: string): Promise<Reservation> {
      // A race with another request opening the window is lost at most once in a row.
      for (let attempt = 0; attempt < 3; attempt++) {
        const counted = await conditionally(countIn(subject));
        if (counted.written) return { reserved: true };
        const remaining = (counted.found ? (expiresAtOf(counted.found) ?? 0) : 0) - nowSeconds();
        if (remaining > 0) return { reserved: false, retryAfterSeconds: remaining };
        if ((await conditionally(open(subject))).written) return { reserved: true };
      }
      return { reserved: false, retryAfterSeconds: 1 };
    },

    /** Gives a reserved attempt back (it turned out well), while its window is open. */
    async release(subject: string): Promise<void> {
      await conditionally(
        request((db, options) =>
          db.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key(subject),
              UpdateExpression: 'ADD #count :minus',
              ConditionExpression: '#expires > :now AND #count > :zero',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':minus': -1, ':now': nowSeconds(), ':zero': 0 },
            }),
            options,
          ),
        ),
      );
    },
  };
}
