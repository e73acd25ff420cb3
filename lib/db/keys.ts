/** Key shapes shared by the declarations (see table.ts for the layout). */
import { createHash } from 'node:crypto';
import { LIMITS } from '../limits.js';

export type Key = { pk: string; sk: string };

/** A key as one text: what maps and sets of items are keyed by. */
export const keyText = (key: Key): string => `${key.pk}\u0000${key.sk}`;

/** Ids are zero-padded in sort keys so that string order is numeric order (2^53 has 16 digits). */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * Index sort keys: every record's starts with RECORD_SORT_PREFIX, and a list's counter items sort
 * before (SORT_FIRST) and after (SORT_LAST) any of them, whatever text follows the prefix (U+10FFFF
 * included): the counters sit at both ends of a list, never among its records.
 */
export const SORT_FIRST = '0';
export const RECORD_SORT_PREFIX = '1';
export const SORT_LAST = '2';

/**
 * A key part that DynamoDB always takes, however long the value: the value itself when it fits in
 * `maxBytes` of UTF-8, else a digest of it. Equal values give equal parts, so a lock or a look-up
 * by a long value works the same as by a short one; the digest starts with a control character,
 * which no validated text holds, so it never equals a short value.
 */
export function boundedKeyPart(value: string, maxBytes: number): string {
  if (Buffer.byteLength(value, 'utf8') <= maxBytes) return value;
  return `\u0000sha256:${createHash('sha256').update(value, 'utf8').digest('base64url')}`;
}

/**
 * The start of a text that fits in `maxBytes` of UTF-8, cut between characters: for index sort keys,
 * where the order of what sorts equal up to the cut is then decided by what follows (the id).
 */
export function sortablePrefix(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += Buffer.byteLength(character, 'utf8');
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/** What an index sort key leaves for a record's text: the key, less its prefix, a separator and the padded id. */
export const SORT_TEXT_BYTES = LIMITS.dynamodb.sortKeyBytes - RECORD_SORT_PREFIX.length - 1 - padId(0).length;

/** Which of `count` partitions a value goes to: the same one every time, spread evenly. */
export const shardOf = (value: string, count: number): number => createHash('sha256').update(value).digest().readUInt32BE(0) % count;

/** The shard of a sharded list a record is in: `<partition>#S<n>`, n picked by its id. */
export const shardPartition = (partition: string, shard: number): string => `${partition}#S${shard}`;

/** The index partition a record is listed under in a list: the list's own, or its shard of it. */
export const listPartitionOf = <R>(list: { partition: (record: Partial<R>) => string; shards?: number | undefined }, record: R, id: string | number): string =>
  list.shards ? shardPartition(list.partition(record), shardOf(String(id), list.shards)) : list.partition(record);

/**
 * Two keys in the order DynamoDB sorts them (UTF-8 bytes, that is code points), not by UTF-16 unit:
 * an astral character sorts after U+FFFF. The search indexes sort their texts the same way.
 */
export function compareKeys(x: string, y: string): number {
  if (x === y) return 0;
  const length = Math.min(x.length, y.length);
  for (let i = 0; i < length; ) {
    // Within both strings' length: a code point is there.
    const [cx, cy] = [x.codePointAt(i) ?? 0, y.codePointAt(i) ?? 0];
    if (cx !== cy) return cx - cy;
    i += cx > 0xffff ? 2 : 1;
  }
  return x.length - y.length;
}
