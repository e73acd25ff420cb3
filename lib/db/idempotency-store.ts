/**
 * Records of idempotent requests: a request takes its key (RUNNING), then records its outcome
 * (DONE) for a retry to find. Records expire by themselves (DynamoDB TTL). What an outcome is, and
 * what a fingerprint covers, is the caller's business.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { request, tableName } from './client.js';
import type { Key } from './keys.js';
import { table } from './table.js';

export interface IdempotencyRecord<Outcome> {
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  outcome?: Outcome;
}

const key = (scope: string): Key => ({ pk: `IDEMPOTENCY#${scope}`, sk: 'RECORD' });

export function defineIdempotencyStore<Outcome>(ttlSeconds: number) {
  return {
    /** Takes the key for this request; returns the record found instead when another request has it. */
    async begin(scope: string, fingerprint: string): Promise<IdempotencyRecord<Outcome> | undefined> {
      const now = Math.floor(Date.now() / 1000);
      try {
        await request((db) =>
          db.send(
            new PutCommand({
              TableName: tableName(),
              Item: { ...key(scope), fingerprint, state: 'RUNNING', [table.ttlAttribute]: now + ttlSeconds },
              ConditionExpression: 'attribute_not_exists(pk) OR #expires < :now',
              ExpressionAttributeNames: { '#expires': table.ttlAttribute },
              ExpressionAttributeValues: { ':now': now },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          ),
        );
        return undefined;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
        const { fingerprint: found, state, outcome } = unmarshall(error.Item);
        return { fingerprint: String(found), state: state === 'DONE' ? 'DONE' : 'RUNNING', outcome: outcome as Outcome | undefined };
      }
    },

    async complete(scope: string, outcome: Outcome): Promise<void> {
      await request((db) =>
        db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: key(scope),
            UpdateExpression: 'SET #state = :done, #outcome = :outcome',
            ExpressionAttributeNames: { '#state': 'state', '#outcome': 'outcome' },
            ExpressionAttributeValues: { ':done': 'DONE', ':outcome': outcome },
          }),
        ),
      );
    },

    /** Frees the key: the request left no outcome worth replaying. */
    async release(scope: string): Promise<void> {
      await request((db) => db.send(new DeleteCommand({ TableName: tableName(), Key: key(scope) })));
    },
  };
}
