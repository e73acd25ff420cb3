/**
 * Pages of lists, in neutral terms: what a list was asked for (limit, offset, the position to
 * continue after) and what it gives back (the items, the position of the next page, the total).
 * The HTTP edge turns positions into signed cursors and pages into headers; nothing here knows it.
 */
import { InvalidPosition } from './errors.js';

/** Where a page ends: the sort key of its last row, as a tuple of strings and numbers. */
export type Position = readonly (string | number)[];

export interface PageRequest {
  limit: number;
  offset: number;
  /** Continue after this position (a previous page's `next`, as given back); `offset` is then ignored. */
  after?: unknown;
  /** A feed's `cursor=now`: no rows, and the position from which every change not read yet comes. */
  fromNow?: boolean;
}

export interface Page<T> {
  items: T[];
  /** The position to continue after, when more rows follow. */
  next?: Position | undefined;
  /** Rows in the whole list, for lists that keep a count. */
  total?: number | undefined;
  /**
   * The position after each item, in order: a page cut short (an answer that would outgrow what
   * the platform carries) continues after its last item kept.
   */
  positions?: readonly Position[] | undefined;
}

/** Checks that a position given back by a client has the shape a list makes (`length` parts, when given). */
export function positionOf(value: unknown, length?: number): Position {
  if (!Array.isArray(value) || (length !== undefined && value.length !== length) || !value.every((part) => typeof part === 'string' || typeof part === 'number')) {
    throw new InvalidPosition();
  }
  return value;
}

/**
 * A page of a small list loaded whole and sorted in memory. `keyOf` is a row's sort key (unique
 * per row) and `compare` the list's order over keys: a page continues after the last row's key,
 * so rows created or deleted between two pages never make a walk skip or repeat another row.
 */
export function pageSorted<T>(sorted: readonly T[], page: PageRequest, keyOf: (item: T) => Position, compare: (a: Position, b: Position) => number): Page<T> {
  let start = page.offset;
  if (page.after) {
    const after = positionOf(page.after);
    start = sorted.findIndex((item) => compare(keyOf(item), after) > 0);
    if (start < 0) start = sorted.length;
  }
  const items = sorted.slice(start, start + page.limit);
  const positions = items.map(keyOf);
  return { items, next: start + page.limit < sorted.length ? positions.at(-1) : undefined, total: sorted.length, positions };
}

/**
 * The page of a filter that names at most one record (an email, a ref): the record is on the first
 * page, and a later page (an offset, a position) is empty. Such lists have no total.
 */
export function singlePage<T>(found: T | undefined, page: PageRequest): Page<T> {
  return { items: found !== undefined && !page.after && page.offset === 0 ? [found] : [] };
}

/** The same page with each item turned into something else (records into rows). */
export const mapPage = <T, U>(page: Page<T>, map: (item: T) => U): Page<U> => ({ ...page, items: page.items.map(map) });
