/**
 * Idempotent POSTs (CONTRACT §7): a request with `Idempotency-Key` records its answer under that
 * key, scoped to the caller's API key, for 24 hours (DynamoDB TTL). A retry with the same body gets
 * the recorded answer and writes nothing; with another body, or while the first is still running,
 * it gets 409. The body is kept only as an HMAC under a server key, so a checkLogin record holds
 * nothing from which a password could be recovered. Answers of 5xx are not recorded: the client may
 * retry them for real.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys, type Key } from '../db/keys.js';
import { table } from '../db/table.js';
import { serverKey } from '../secrets.js';
import { problemResponse, toProblem } from './errors.js';
import { HttpProblem, invalidField } from './problem.js';
import { header, rawBody, type HttpMiddleware, type HttpRequest, type HttpResponse } from './types.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

interface Recorded {
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  response?: HttpResponse;
}

const internal = new WeakMap<HttpRequest, Key>();

function fingerprint(request: HttpRequest): string {
  return createHmac('sha256', serverKey('idempotency'))
    .update(`${request.event.requestContext.http.method} ${request.event.rawPath}\n`)
    .update(rawBody(request.event))
    .digest('base64url');
}

function sameFingerprint(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

async function record(key: Key, response: HttpResponse): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #state = :done, #response = :response',
      ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
      ExpressionAttributeValues: { ':done': 'DONE', ':response': response },
    }),
  );
}

export const idempotency = (): HttpMiddleware => ({
  before: async (request) => {
    const idempotencyKey = header(request.event, 'idempotency-key');
    if (idempotencyKey === undefined) return undefined;
    if (!KEY_PATTERN.test(idempotencyKey)) throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
    const scope = `${request.context.apiKey?.apiKey ?? 'anonymous'}#${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
    const key = keys.idempotency(scope);
    const print = fingerprint(request);
    const now = Math.floor(Date.now() / 1000);
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key, fingerprint: print, state: 'RUNNING', [table.ttlAttribute]: now + IDEMPOTENCY_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk) OR #expires < :now',
          ExpressionAttributeNames: { '#expires': table.ttlAttribute },
          ExpressionAttributeValues: { ':now': now },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
      const previous = unmarshall(error.Item) as Recorded;
      if (!sameFingerprint(previous.fingerprint, print)) throw new HttpProblem(409, 'this Idempotency-Key was used with another request');
      if (previous.state !== 'DONE' || !previous.response) throw new HttpProblem(409, 'a request with this Idempotency-Key is still running; retry later');
      // The recorded answer, as it was: the handler does not run again.
      return { ...previous.response, headers: { ...previous.response.headers, 'Idempotent-Replayed': 'true' } };
    }
    internal.set(request, key);
    return undefined;
  },
  after: async (request) => {
    const key = internal.get(request);
    if (key && request.response) await record(key, request.response);
  },
  onError: async (request) => {
    const key = internal.get(request);
    if (!key) return;
    const response = problemResponse(toProblem(request.error));
    if ((response.statusCode ?? 500) >= 500) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
    } else {
      await record(key, response);
    }
  },
});
