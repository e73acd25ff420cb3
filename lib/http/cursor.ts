/**
 * Opaque, tamper-proof paging cursors: a list position signed with HMAC-SHA256 together with the
 * scope it was made for (the route, its order, filters and `lang`), so that an altered cursor or
 * one replayed on another list is refused (400) instead of reaching the data layer. The scope is
 * carried as a digest (SHA-256, 128 bits): a cursor's size does not grow with its filters' values,
 * which would otherwise make response headers (`Link`, `X-Next-Cursor`) larger than clients take.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { serverKey } from '../secrets.js';
import { badCursor } from './errors.js';

const sign = async (payload: string): Promise<Buffer> =>
  createHmac('sha256', await serverKey('cursor'))
    .update(payload)
    .digest();

/** A scope as a cursor carries it. */
const digest = (scope: string) => createHash('sha256').update(scope).digest('base64url').slice(0, 22);

export async function encodeCursor(scope: string, position: unknown): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ s: digest(scope), p: position })).toString('base64url');
  return `${payload}.${(await sign(payload)).toString('base64url')}`;
}

/** What a cursor's parts are made of: base64url, without padding. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export async function decodeCursor(scope: string, cursor: string): Promise<unknown> {
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) throw badCursor();
  // The signature exactly as signed: base64url decoding would pass over padding, a line feed or any
  // other byte it does not know, and an altered cursor must be refused whatever byte was altered.
  const expected = Buffer.from((await sign(payload)).toString('base64url'));
  const given = Buffer.from(signature);
  if (!BASE64URL.test(payload) || given.length !== expected.length || !timingSafeEqual(given, expected)) throw badCursor();
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { s?: unknown; p?: unknown };
  if (decoded.s !== digest(scope)) throw badCursor();
  return decoded.p;
}
