/**
 * The category list's loop arguments and orders (docs/lists.md), and what the search index keeps of
 * a category. The table serves the whole list by position, id, last update or creation (counted;
 * `updated_since` as a range of the updates' order), and one parent's children by position or id;
 * the index, the rest.
 */
import { present } from '../present.js';
import type * as v from 'valibot';
import { both, contains, defineList, listQuerySchema, noneOf, oneOf, since, visibility } from '../db/lists/arguments.js';
import { runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { fold } from '../db/lists/query.js';
import { langParam, localeOf, translate } from '../i18n.js';
import { idList, instant } from '../validation.js';
import { categories, TEXT_FIELDS, type Category } from './entity.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { searchEngine } from '../opensearch/index.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { categoryRow } from './row.js';

export const categoryList = defineList<Category>({
  kind: 'categories',
  resource: 'category',
  arguments: {
    parent: oneOf('parent', idList(), 'the children of these categories (0: the top level)'),
    exclude_parent: noneOf('parent', idList(), 'leaves out the children of these categories'),
    exclude: noneOf('id', idList(), 'leaves these categories out'),
    visible: visibility('visible'),
    title: contains('title', 'the title in `lang` contains this, case- and accent-insensitively'),
    updated_since: since('updatedAt', instant(), 'updated at or after this instant'),
  },
  orders: {
    ...both('manual', 'position'),
    ...both('id', 'id'),
    ...both('alpha', 'title', true),
    ...both('created', 'createdAt'),
    ...both('updated', 'updatedAt'),
  },
  // By position among a parent's children, as Thelia's loop does; by id otherwise.
  defaultOrder: (args) => (args.parent !== undefined ? 'manual' : 'id'),
  document: (c) => ({
    id: c.id,
    values: { parent: c.parent, visible: Number(c.visible), position: c.position, createdAt: c.createdAt, updatedAt: c.updatedAt },
    texts: { title: Object.fromEntries(Object.keys(c.i18n).map((locale) => [locale, fold(translate(c.i18n, locale, TEXT_FIELDS).texts.title)])) },
  }),
});

const ORDERS = ['manual', 'manual_reverse', 'id', 'id_reverse'];

/** What the table serves, first match first. */
export const categoryRoutes: readonly TableRoute<Category>[] = [
  { serves: [], orders: ORDERS, read: (_args, order, page) => categories.list('all', tableOrder(order), page) },
  {
    serves: ['updated_since'],
    orders: ['updated', 'updated_reverse'],
    read: (args, order, page) => categories.list('byUpdate', { ...tableOrder(order), from: args.updated_since as string | undefined }, page),
  },
  { serves: [], orders: ['created', 'created_reverse'], read: (_args, order, page) => categories.list('byCreation', tableOrder(order), page) },
  {
    requires: ['parent'],
    when: (args) => (args.parent as number[]).length === 1,
    serves: [],
    orders: ORDERS,
    read: (args, order, page) => categories.list('byParent', { ...tableOrder(order), where: { parent: present((args.parent as number[])[0], 'the one parent') } }, page),
  },
];

export const CategoryListQuery = listQuerySchema(categoryList, { lang: langParam() });
export type CategoryListInput = v.InferOutput<typeof CategoryListQuery>;

export async function listCategories(query: CategoryListInput, page: PageRequest): Promise<Page<Row>> {
  const reading = { locale: localeOf(query.lang), fallback: defaultLang.locale };
  const found = await runList({ list: categoryList, routes: categoryRoutes, args: query, reading, readMany: (ids) => categories.readMany(ids), engine: searchEngine(), id: (c) => c.id }, page);
  return mapPage(found, (c) => categoryRow(c, reading.locale));
}
