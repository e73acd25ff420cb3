/**
 * The attribute value list's loop arguments and orders (docs/api.md: Thelia's attribute_availability
 * loop), and what the search index keeps of a value. The table serves the whole list by position or
 * id (counted), one attribute's values by position or id, and one value by its id; the index, the
 * rest. `product` names the values a product's sale elements are made of, found by the function the
 * route gives (sale elements refer to values, so values know nothing of them): they become `id`.
 */
import type * as v from 'valibot';
import { CATALOG_TEXTS } from '../catalog-texts.js';
import { both, defineList, listQuerySchema, noneOf, oneOf } from '../db/lists/arguments.js';
import { oneIdRoute, runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { fold } from '../db/lists/query.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { langParam, localeOf, translate } from '../i18n.js';
import { searchEngine } from '../opensearch/index.js';
import { present } from '../present.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { idList, integer } from '../validation.js';
import { attributeAvs, type AttributeAv } from './entity.js';
import { attributeAvRow } from './row.js';

export const attributeAvList = defineList<AttributeAv>({
  kind: 'attribute-avs',
  resource: 'attribute-av',
  arguments: {
    id: oneOf('id', idList(), 'these values'),
    attribute: oneOf('attributeId', idList(), 'the values of these attributes'),
    // Read from the product's sale elements before the list is planned (listAttributeAvs): it becomes `id`.
    product: { schema: integer(1) },
    exclude: noneOf('id', idList(), 'leaves these values out'),
  },
  orders: {
    ...both('manual', 'position'),
    ...both('id', 'id'),
    ...both('alpha', 'title', true),
  },
  // By position, as Thelia's loop orders by default.
  defaultOrder: () => 'manual',
  document: (av) => ({
    id: av.id,
    values: { attributeId: av.attributeId, position: av.position },
    texts: { title: Object.fromEntries(Object.keys(av.i18n).map((locale) => [locale, fold(translate(av.i18n, locale, CATALOG_TEXTS).texts.title)])) },
  }),
});

const ORDERS = ['manual', 'manual_reverse', 'id', 'id_reverse'];

/** What the table serves, first match first. */
export const attributeAvRoutes: readonly TableRoute<AttributeAv>[] = [
  oneIdRoute('id', (id) => attributeAvs.read(id)),
  { serves: [], orders: ORDERS, read: (_args, order, page) => attributeAvs.list('all', tableOrder(order), page) },
  {
    requires: ['attribute'],
    when: (args) => (args.attribute as number[]).length === 1,
    serves: [],
    orders: ORDERS,
    read: (args, order, page) => attributeAvs.list('byAttribute', { ...tableOrder(order), where: { attributeId: present((args.attribute as number[])[0], 'the one attribute') } }, page),
  },
];

export const AttributeAvListQuery = listQuerySchema(attributeAvList, { lang: langParam() });
export type AttributeAvListInput = v.InferOutput<typeof AttributeAvListQuery>;

/** How a list finds the values a product's sale elements are made of. */
export type ValuesOfProduct = (productId: number) => Promise<number[]>;

/** `product=N`: the values of product N's sale elements, as the ids it allows; undefined when it allows none. */
async function withProductsValues(query: AttributeAvListInput, valuesOf: ValuesOfProduct): Promise<AttributeAvListInput | undefined> {
  const { product, id } = query as { product?: number; id?: number[] };
  if (product === undefined) return query;
  const values = (await valuesOf(product)).filter((value) => id === undefined || id.includes(value));
  return values.length ? ({ ...query, product: undefined, id: values } as AttributeAvListInput) : undefined;
}

export async function listAttributeAvs(query: AttributeAvListInput, page: PageRequest, valuesOf: ValuesOfProduct): Promise<Page<Row>> {
  const args = await withProductsValues(query, valuesOf);
  if (!args) return { items: [], total: 0 };
  const reading = { locale: localeOf(query.lang), fallback: defaultLang.locale };
  const found = await runList({ list: attributeAvList, routes: attributeAvRoutes, args, reading, readMany: (ids) => attributeAvs.readMany(ids), engine: searchEngine(), id: (av) => av.id }, page);
  return mapPage(found, (av) => attributeAvRow(av, reading.locale));
}
