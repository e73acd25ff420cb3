/**
 * An item's size as DynamoDB counts it against its 400 KB limit: each attribute's name and value in
 * UTF-8, numbers by their digits, maps and lists by their members plus a few bytes of overhead. The
 * estimate errs upward by a few bytes per attribute, never downward, so that a record it admits is
 * one DynamoDB takes.
 */
import { LIMITS } from '../limits.js';
import { TooLarge } from './errors.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, member) => sum + 1 + valueBytes(member), 0);
  if (typeof value === 'object') return 3 + itemBytes(value as Record<string, unknown>) + Object.keys(value).length;
  return utf8(String(value));
}

export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) bytes += utf8(name) + valueBytes(value);
  return bytes;
}

/** Throws TooLarge when the item would not fit in one DynamoDB item; `what` names the record. */
export function assertFitsOneItem(item: Record<string, unknown>, what: string): void {
  const bytes = itemBytes(item);
  if (bytes > LIMITS.dynamodb.itemBytes) throw new TooLarge(what, bytes, LIMITS.dynamodb.itemBytes);
}
