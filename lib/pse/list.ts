/**
 * The sale element list's loop arguments and orders (docs/api.md: Thelia's `product_sale_elements`
 * loop, and beyond it a stock report), and what the search index keeps of a sale element. The table
 * serves one product's sale elements by id and one sale element by its id; every other list is the
 * search index's, fed from the change feed: a stock change writes no index partition that every other
 * stock change of the store writes too.
 */
import * as v from 'valibot';
import { allOf, both, bound, defineList, flagIs, listQuerySchema, oneOf, since, textIs } from '../db/lists/arguments.js';
import { oneIdRoute, runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { decimalValue, fold } from '../db/lists/query.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { langParam } from '../i18n.js';
import { storedMicros } from '../money.js';
import { searchEngine } from '../opensearch/index.js';
import { present } from '../present.js';
import { saleElements, type SaleElement } from '../products/sale-elements.js';
import { MAX_DECIMAL } from '../products/schema.js';
import { currencyIds, defaultCurrencyId, defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { decimal, idList, instant, knownId } from '../validation.js';
import { pricesIn, pseRow } from './row.js';
import { rowContext } from './row-context.js';

const decimalBound = () => v.pipe(decimal(MAX_DECIMAL), v.transform(decimalValue));
const stored = (value: string) => decimalValue(storedMicros(value));

export const pseList = defineList<SaleElement>({
  kind: 'pse',
  resource: 'pse',
  arguments: {
    id: oneOf('id', idList(), 'these sale elements'),
    product: oneOf('productId', idList(), 'the sale elements of these products'),
    ref: textIs('ref', 'the sale element of this reference'),
    ean_code: textIs('ean', 'the sale elements of this EAN'),
    promo: flagIs('promo', '1: on sale only, 0: the others'),
    new: flagIs('newness', '1: new only, 0: the others'),
    default: flagIs('isDefault', '1: the products’ default sale elements, 0: the others'),
    attribute_availability: allOf('attributeAvs', idList(), 'the sale elements made of all these attribute values'),
    min_stock: bound('quantity', 'min', decimalBound(), 'a stock of at least this (inclusive)'),
    max_stock: bound('quantity', 'max', decimalBound(), 'a stock of at most this (inclusive): a low-stock report'),
    updated_since: since('updatedAt', instant(), 'updated at or after this instant'),
  },
  orders: {
    ...both('id', 'id'),
    ...both('ref', 'ref', true),
    ...both('quantity', 'quantity'),
    min_price: { field: 'price', text: false, reverse: false },
    max_price: { field: 'price', text: false, reverse: true },
    promo: { field: 'promo', text: false, reverse: true },
    new: { field: 'newness', text: false, reverse: true },
    ...both('weight', 'weight'),
    ...both('created', 'createdAt'),
    ...both('updated', 'updatedAt'),
  },
  defaultOrder: () => 'id',
  document: (e) => ({
    id: e.id,
    values: {
      productId: e.productId,
      quantity: stored(e.quantity),
      weight: stored(e.weight),
      // Prices sort in the shop's currency.
      price: decimalValue(pricesIn(e, defaultCurrencyId).price),
      promo: Number(e.promo),
      newness: Number(e.newness),
      isDefault: Number(e.isDefault),
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
    },
    texts: { ref: fold(e.ref), ean: e.ean, attributeAvs: e.attributeAvs.join(' ') },
  }),
});

/** What the table serves, first match first. */
export const pseRoutes: readonly TableRoute<SaleElement>[] = [
  oneIdRoute('id', (id) => saleElements.read(id)),
  {
    requires: ['product'],
    when: (args) => (args.product as number[]).length === 1,
    serves: [],
    orders: ['id', 'id_reverse'],
    read: (args, order, page) => saleElements.list('byProduct', { ...tableOrder(order), where: { productId: present((args.product as number[])[0], 'the one product') } }, page),
  },
];

export const PseListQuery = listQuerySchema(pseList, { lang: langParam(), currency: v.optional(knownId(currencyIds, 'currency id')) });
export type PseListInput = v.InferOutput<typeof PseListQuery>;

/** A page of sale elements, each shown in `currency` (default: its product's), taxed with its product's rule. */
export async function listPse(query: PseListInput, page: PageRequest): Promise<Page<Row>> {
  const reading = { locale: (query.lang ?? defaultLang).locale, fallback: defaultLang.locale };
  const found = await runList({ list: pseList, routes: pseRoutes, args: query, reading, readMany: (ids) => saleElements.readMany(ids), engine: searchEngine(), id: (e) => e.id }, page);
  const {
    products: owners,
    rules,
    order,
  } = await rowContext(
    found.items.map((e) => e.productId),
    Promise.resolve(found.items),
  );
  return mapPage(found, (e) => {
    const product = owners.get(e.productId);
    return pseRow(e, product && rules.get(product.taxRuleId), query.currency ?? product?.currency ?? defaultCurrencyId, order);
  });
}
