/**
 * Opaque, tamper-proof paging cursors: a position signed with HMAC-SHA256 together with the list,
 * order and filter it was made for, so that an altered cursor or one replayed on another list is
 * refused (400) instead of reaching DynamoDB.
 *
 * The key comes from STORE_CURSOR_SECRET; without it, one derived from the table name is used, which
 * still binds a cursor to its list but is guessable: deployments set the secret (see README).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField } from '../http/problem.js';
import { tableName } from './client.js';

const secret = (): Buffer =>
  process.env.STORE_CURSOR_SECRET
    ? Buffer.from(process.env.STORE_CURSOR_SECRET)
    : createHash('sha256').update(`store-api cursor key for ${tableName()}`).digest();

const sign = (payload: string): Buffer => createHmac('sha256', secret()).update(payload).digest();

/** `scope` names the list, order and filters; `position` is whatever the list needs to resume. */
export function encodeCursor(scope: string, position: unknown): string {
  const payload = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
  return `${payload}.${sign(payload).toString('base64url')}`;
}

export function decodeCursor(scope: string, cursor: string): unknown {
  const bad = () => invalidField('cursor', 'is not a cursor of this list, order and filter');
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) throw bad();
  const expected = sign(payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { s?: unknown; p?: unknown };
  if (decoded.s !== scope) throw bad();
  return decoded.p;
}
