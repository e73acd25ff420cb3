/**
 * The attribute list's loop arguments and orders (docs/api.md, Thelia's attribute loop), and what
 * the search index keeps of an attribute. The table serves the whole list by id, position, last
 * update or creation (counted), and one attribute by its id; the index, the rest.
 */
import type * as v from 'valibot';
import { CATALOG_TEXTS } from '../catalog-texts.js';
import { both, contains, defineList, listQuerySchema, noneOf, oneOf } from '../db/lists/arguments.js';
import { oneIdRoute, runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { fold } from '../db/lists/query.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { langParam, localeOf, translate } from '../i18n.js';
import { searchEngine } from '../opensearch/index.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { idList } from '../validation.js';
import { attributes, type Attribute } from './entity.js';
import { attributeRow } from './row.js';

export const attributeList = defineList<Attribute>({
  kind: 'attributes',
  resource: 'attribute',
  arguments: {
    id: oneOf('id', idList(), 'these attributes'),
    title: contains('title', 'the title in `lang` contains this, case- and accent-insensitively'),
    exclude: noneOf('id', idList(), 'leaves these attributes out'),
  },
  orders: {
    ...both('manual', 'position'),
    ...both('id', 'id'),
    ...both('alpha', 'title', true),
    ...both('created', 'createdAt'),
    ...both('updated', 'updatedAt'),
  },
  // By position, as Thelia's attribute loop orders by default.
  defaultOrder: () => 'manual',
  document: (a) => ({
    id: a.id,
    values: { position: a.position, createdAt: a.createdAt, updatedAt: a.updatedAt },
    texts: { title: Object.fromEntries(Object.keys(a.i18n).map((locale) => [locale, fold(translate(a.i18n, locale, CATALOG_TEXTS).texts.title)])) },
  }),
});

/** What the table serves, first match first. */
export const attributeRoutes: readonly TableRoute<Attribute>[] = [
  oneIdRoute('id', (id) => attributes.read(id)),
  { serves: [], orders: ['id', 'id_reverse', 'manual', 'manual_reverse'], read: (_args, order, page) => attributes.list('all', tableOrder(order), page) },
  { serves: [], orders: ['updated', 'updated_reverse'], read: (_args, order, page) => attributes.list('byUpdate', tableOrder(order), page) },
  { serves: [], orders: ['created', 'created_reverse'], read: (_args, order, page) => attributes.list('byCreation', tableOrder(order), page) },
];

export const AttributeListQuery = listQuerySchema(attributeList, { lang: langParam() });
export type AttributeListInput = v.InferOutput<typeof AttributeListQuery>;

export async function listAttributes(query: AttributeListInput, page: PageRequest): Promise<Page<Row>> {
  const reading = { locale: localeOf(query.lang), fallback: defaultLang.locale };
  const found = await runList({ list: attributeList, routes: attributeRoutes, args: query, reading, readMany: (ids) => attributes.readMany(ids), engine: searchEngine(), id: (a) => a.id }, page);
  return mapPage(found, (a) => attributeRow(a, reading.locale));
}
