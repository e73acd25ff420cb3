/**
 * One planner for every list (docs/lists.md): a list whose arguments and order one key or index of
 * the table serves is read there, its page's reads bounded by its limit; any other is asked of the
 * search index, which answers ids in order with the total, and its rows are then read from the table
 * (so a row is the record as it is now). A filter that names at most one record (a ref, an email)
 * is served by its key whatever else is asked, the record then checked against the other filters.
 */
import { filteringArguments, filtersOf, type Arguments, type ListDeclaration } from './arguments.js';
import { present } from '../../present.js';
import { IndexBuilding, NeedsSearchIndex } from '../errors.js';
import { positionOf, type Page, type PageRequest } from '../page.js';
import { isWhole, type SearchEngine } from './engine.js';
import { matches, type Reading, type SearchOrder, type SearchQuery } from './query.js';

/** An order's name as an entity's list takes it: `alpha_reverse` is `alpha`, reversed. */
export const tableOrder = (name: string): { order: string; reverse: boolean } => ({ order: name.replace(/_reverse$/, ''), reverse: name.endsWith('_reverse') });

/** A way the table serves a list: the arguments and orders it takes, and how it reads a page. */
export interface TableRoute<R> {
  /** Arguments it needs, all given. */
  requires?: readonly string[];
  /** What else the arguments must be (one id, not several). */
  when?: (args: Arguments) => boolean;
  /**
   * What it takes besides: any other filtering argument sends the list elsewhere. `any`: it names one
   * record at most, read whatever the page, and checked against the other filters.
   */
  serves: readonly string[] | 'any';
  /** The orders it reads in (`any`: one record is in every order). */
  orders: readonly string[] | 'any';
  read(args: Arguments, order: string, page: PageRequest): Promise<Page<R>>;
}

/** `argument` (a list of ids) given one id names one record: read it whatever else is asked, and check it against the other filters. */
export const oneIdRoute = <R>(argument: string, read: (id: number) => Promise<R | undefined>): TableRoute<R> => ({
  requires: [argument],
  when: (args) => (args[argument] as number[]).length === 1,
  serves: 'any',
  orders: 'any',
  read: async (args) => ({ items: [await read(present((args[argument] as number[])[0], `the one ${argument}`))].filter((found) => found !== undefined) }),
});

export interface Plan<R> {
  order: string;
  /** The table's route, else the search index. */
  route: TableRoute<R> | undefined;
}

/** Which way serves a list's arguments and order: the first of the table's routes that takes them all, else the search index. */
export function planList<R>(list: ListDeclaration<R>, routes: readonly TableRoute<R>[], args: Arguments): Plan<R> {
  const order = (args.order as string | undefined) ?? list.defaultOrder(args);
  const filtering = filteringArguments(list, args);
  const route = routes.find(
    (candidate) =>
      (candidate.requires ?? []).every((name) => filtering.includes(name)) &&
      (candidate.when?.(args) ?? true) &&
      (candidate.serves === 'any' || filtering.every((name) => candidate.serves.includes(name) || candidate.requires?.includes(name))) &&
      (candidate.orders === 'any' || candidate.orders.includes(order)),
  );
  return { order, route };
}

export interface ListRun<R> {
  list: ListDeclaration<R>;
  routes: readonly TableRoute<R>[];
  args: Arguments;
  /** How localized texts are read. */
  reading: Reading;
  /** The records of the index's ids that still exist, in any order. */
  readMany(ids: readonly number[]): Promise<R[]>;
  id(record: R): number;
  /** The search index, where the deployment has one. */
  engine: SearchEngine | undefined;
}

/** A page of a list, served as its plan says, with its total whenever the table or the index knows it. */
export async function runList<R>(run: ListRun<R>, page: PageRequest): Promise<Page<R>> {
  const { list, args, reading, engine } = run;
  const plan = planList(list, run.routes, args);
  const filters = filtersOf(list, args);
  const query = (limit: number): SearchQuery => ({
    kind: list.kind,
    ...reading,
    filters,
    order: list.orders[plan.order] as SearchOrder,
    limit,
    offset: page.offset,
    after: page.after === undefined ? undefined : positionOf(page.after, 2),
  });
  if (plan.route) {
    const route = plan.route;
    // A filtered list the table serves counts with the index, where there is one, while the page is
    // read; an index that fails costs the page its total, never its rows.
    const counting =
      route.serves !== 'any' && filters.length > 0 && engine
        ? Promise.all([engine.query({ ...query(0), after: undefined }), engine.position()])
            .then(([counted, noted]) => (isWhole(noted) ? counted : undefined))
            .catch(() => undefined)
        : undefined;
    const found = await route.read(args, plan.order, page);
    if (route.serves === 'any') {
      // What its key answered (a ref, as its lock compares it) is not asked again.
      const others = filtersOf(list, Object.fromEntries(Object.entries(args).filter(([name]) => !route.requires?.includes(name))));
      const matching = found.items.filter((record) => matches(list.document(record), others, reading));
      return { items: page.after === undefined && page.offset === 0 ? matching : [], total: matching.length };
    }
    const counted = await counting;
    return found.total !== undefined || !counted ? found : { ...found, total: counted.total };
  }
  if (!engine) throw new NeedsSearchIndex(filteringArguments(list, args)[0] ?? 'order');
  // An index being built notes no position (projector.ts): its answer would be part of the list.
  const [answer, noted] = await Promise.all([engine.query(query(page.limit)), engine.position()]);
  if (!isWhole(noted)) throw new IndexBuilding();
  const byId = new Map((await run.readMany(answer.ids)).map((record) => [run.id(record), record]));
  const kept = answer.ids.flatMap((id, i) => {
    const [record, position] = [byId.get(id), answer.positions[i]];
    return record && position ? [{ record, position }] : [];
  });
  return {
    items: kept.map((entry) => entry.record),
    positions: kept.map((entry) => entry.position),
    next: answer.more ? answer.positions.at(-1) : undefined,
    total: answer.total,
  };
}
