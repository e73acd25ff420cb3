/**
 * Failed login checks per email (CONTRACT §6): after 10 failures within 10 minutes, checkLogin
 * answers 429 until the window passes. The counter item expires by itself (DynamoDB TTL); since TTL
 * deletion is lazy, the window's end is also checked here.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { table } from '../db/table.js';
import { HttpProblem } from '../http/problem.js';

export const MAX_FAILURES = 10;
export const WINDOW_SECONDS = 600;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The 429 to answer when the email has too many recent failures. */
export function tooManyFailures(item: Record<string, unknown> | undefined): HttpProblem | undefined {
  if (!item) return undefined;
  const expiresAt = Number(item[table.ttlAttribute] ?? 0);
  const remaining = expiresAt - nowSeconds();
  if (remaining <= 0 || Number(item.failures ?? 0) < MAX_FAILURES) return undefined;
  return new HttpProblem(429, 'too many failed login checks for this email; retry later', { headers: { 'Retry-After': String(remaining) } });
}

/** Whether a failure window is open: then a failure is counted into it, else a new one starts. */
const windowOpen = (item: Record<string, unknown> | undefined): boolean => Number(item?.[table.ttlAttribute] ?? 0) > nowSeconds();

/**
 * Counts a failed check. `seen` is the counter item as read with the login item, so that the usual
 * case costs one write; a race with a concurrent failure falls back to the other write.
 */
export async function recordFailure(email: string, seen: Record<string, unknown> | undefined): Promise<void> {
  const key = keys.loginFailures(email);
  const names = { '#expires': table.ttlAttribute };
  const countIntoWindow = () =>
    db().send(new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD failures :one',
      ConditionExpression: '#expires > :now',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds() },
    }));
  const startWindow = () =>
    db().send(new PutCommand({
      TableName: tableName(),
      Item: { ...key, failures: 1, [table.ttlAttribute]: nowSeconds() + WINDOW_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk) OR #expires <= :now',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':now': nowSeconds() },
    }));
  const attempts = windowOpen(seen) ? [countIntoWindow, startWindow, countIntoWindow] : [startWindow, countIntoWindow, startWindow];
  for (const attempt of attempts) {
    try {
      await attempt();
      return;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}
