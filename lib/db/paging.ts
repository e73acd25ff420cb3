/**
 * Paging of lists (CONTRACT §5): `limit`, `offset` and a signed `cursor`; the next page's cursor
 * goes out in `X-Next-Cursor` and a `Link: rel="next"` header, and unfiltered lists send
 * `X-Total-Count` from their counter items.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { counterValue } from './counters.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { table, type IndexName } from './table.js';
import { invalidField } from '../http/problem.js';

export interface PageRequest {
  limit: number;
  offset: number;
  cursor?: string | undefined;
}

/** Where the list is served from and how its next-page link is written. */
export interface ListSource {
  /** The list, order and filters, bound into the cursor. */
  scope: string;
  /** The request path and the query parameters that define the list (not limit/offset/cursor). */
  path: string;
  query: Record<string, string>;
}

export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

function pageHeaders(source: ListSource, page: PageRequest, nextCursor: string | undefined, total: number | undefined) {
  const headers: Record<string, string> = {};
  if (total !== undefined) headers['X-Total-Count'] = String(total);
  if (nextCursor) {
    const params = new URLSearchParams({ ...source.query, limit: String(page.limit), cursor: nextCursor });
    headers['X-Next-Cursor'] = nextCursor;
    headers.Link = `<${source.path}?${params}>; rel="next"`;
  }
  return headers;
}

type Item = Record<string, unknown>;

export interface IndexListRequest extends ListSource {
  index: IndexName;
  partition: string;
  forward: boolean;
  /** Whether the partition holds counter items at both ends (unfiltered lists). */
  counted: boolean;
}

const isKey = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');

/**
 * Reads one page of an index partition. The first page of a counted list costs one Query: the
 * counter comes first whichever the direction. Offsets are walked through, at most 10 000 rows.
 */
export async function queryIndexPage(request: IndexListRequest, page: PageRequest): Promise<Page<Item>> {
  const { partitionKey, sortKey } = table.indexes[request.index];
  let startKey: Record<string, string> | undefined;
  if (page.cursor) {
    const position = decodeCursor(request.scope, page.cursor);
    if (!isKey(position) || position[partitionKey] !== request.partition) {
      throw invalidField('cursor', 'is not a cursor of this list, order and filter');
    }
    startKey = position;
  }
  const skip = page.cursor ? 0 : page.offset;
  const readsCounter = request.counted && !page.cursor;
  // One more than the page, to know whether a next page exists.
  const wanted = (readsCounter ? 1 : 0) + skip + page.limit + 1;
  const items: Item[] = [];
  let lastKey: Record<string, unknown> | undefined = startKey;
  do {
    const input: QueryCommandInput = {
      TableName: tableName(),
      IndexName: request.index,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey },
      ExpressionAttributeValues: { ':pk': request.partition },
      ScanIndexForward: request.forward,
      Limit: wanted - items.length,
      ...(lastKey ? { ExclusiveStartKey: lastKey } : {}),
    };
    const result = await db().send(new QueryCommand(input));
    items.push(...(result.Items ?? []));
    lastKey = result.LastEvaluatedKey;
  } while (lastKey && items.length < wanted);

  let total: number | undefined;
  if (readsCounter && items[0] && counterValue(items[0]) !== undefined) total = counterValue(items.shift()!);
  // The counter at the far end of the partition is never a row.
  const rows = items.filter((item) => counterValue(item) === undefined);
  const pageItems = rows.slice(skip, skip + page.limit);
  const last = pageItems.at(-1);
  const hasMore = rows.length > skip + page.limit;
  const nextCursor =
    hasMore && last
      ? encodeCursor(request.scope, {
          pk: last.pk,
          sk: last.sk,
          [partitionKey]: last[partitionKey],
          [sortKey]: last[sortKey],
        })
      : undefined;
  return { items: pageItems, headers: pageHeaders(request, page, nextCursor, request.counted ? total ?? 0 : undefined) };
}

/**
 * The page of a filter that names at most one record (an email, a ref): the record is on the first
 * page, and a later page (an offset, a cursor) is empty. Such lists send no total.
 */
export function singleRecordPage<T>(found: T | undefined, page: PageRequest): T[] {
  return found !== undefined && !page.cursor && page.offset === 0 ? [found] : [];
}

/** Every item a query matches, following DynamoDB's pages (for small, bounded sets). */
export async function queryAll(input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Pages a small, fully loaded and sorted list (tax rules); the cursor holds the next offset. */
export function pageInMemory<T>(all: T[], source: ListSource, page: PageRequest, total: number | undefined): Page<T> {
  let start = page.offset;
  if (page.cursor) {
    const position = decodeCursor(source.scope, page.cursor);
    if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) {
      throw invalidField('cursor', 'is not a cursor of this list, order and filter');
    }
    start = position;
  }
  const items = all.slice(start, start + page.limit);
  const next = start + page.limit < all.length ? encodeCursor(source.scope, start + page.limit) : undefined;
  return { items, headers: pageHeaders(source, page, next, total) };
}
