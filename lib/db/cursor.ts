/**
 * Opaque, tamper-proof paging cursors: a position signed with HMAC-SHA256 together with the list,
 * order and filter it was made for, so that an altered cursor or one replayed on another list is
 * refused (400) instead of reaching DynamoDB.
 The key is the server's cursor key (lib/secrets.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField } from '../http/problem.js';
import { serverKey } from '../secrets.js';

const sign = (payload: string): Buffer => createHmac('sha256', serverKey('cursor')).update(payload).digest();

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
