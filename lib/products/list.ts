/**
 * The product list's loop arguments and orders (docs/lists.md), with Thelia's names, and what the
 * search index keeps of a product. The table serves a ref (its lock), the whole list by id, ref,
 * price, last update or creation (counted; `updated_since` and `created_since` as ranges of the
 * last two), one visibility by id or ref, and one default category by id; the index, the rest.
 */
import { present } from '../present.js';
import * as v from 'valibot';
import { both, bound, contains, defineList, listQuerySchema, noneOf, oneOf, search, since, textIs, visibility } from '../db/lists/arguments.js';
import { runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { decimalValue, fold } from '../db/lists/query.js';
import { langParam, localeOf, translate } from '../i18n.js';
import { decimal, idList, instant } from '../validation.js';
import { decimalKey, products, TEXT_FIELDS, type Product } from './entity.js';
import { MAX_DECIMAL } from './schema.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { searchEngine } from '../opensearch/index.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { taxRulesAt, taxRulesVersion } from '../tax-rules/index.js';
import { productRow } from './row.js';

const decimalBound = () => v.pipe(decimal(MAX_DECIMAL), v.transform(decimalValue));

/** Each locale the product has texts in, every field of it folded (as its row shows it in that locale). */
const localized = (p: Product, field: (typeof TEXT_FIELDS)[number]) => Object.fromEntries(Object.keys(p.i18n).map((locale) => [locale, fold(translate(p.i18n, locale, TEXT_FIELDS).texts[field])]));

export const productList = defineList<Product>({
  kind: 'products',
  resource: 'product',
  arguments: {
    ref: textIs('ref', 'the product of this reference'),
    visible: visibility('visible'),
    category: oneOf('defaultCategory', idList(), 'the products whose default category is one of these (this store keeps only the default one)'),
    category_default: oneOf('defaultCategory', idList(), 'the products whose default category is one of these'),
    exclude: noneOf('id', idList(), 'leaves these products out'),
    exclude_category: noneOf('defaultCategory', idList(), 'leaves out the products whose default category is one of these'),
    brand: oneOf('brandId', idList(), 'the products of these brands'),
    tax_rule_id: oneOf('taxRuleId', idList(), 'the products under these tax rules'),
    min_price: bound('price', 'min', decimalBound(), 'a price at least this (untaxed, inclusive)'),
    max_price: bound('price', 'max', decimalBound(), 'a price at most this (untaxed, inclusive)'),
    min_weight: bound('weight', 'min', decimalBound(), 'a weight at least this (inclusive)'),
    max_weight: bound('weight', 'max', decimalBound(), 'a weight at most this (inclusive)'),
    title: contains('title', 'the title in `lang` contains this, case- and accent-insensitively (`creme` finds `Crème brûlée`)'),
    ...search(['ref', 'title', 'chapo', 'description', 'postscriptum'], ['ref', 'title']),
    updated_since: since('updatedAt', instant(), 'updated at or after this instant'),
    created_since: since('createdAt', instant(), 'created at or after this instant'),
  },
  orders: {
    ...both('id', 'id'),
    ...both('alpha', 'title', true),
    min_price: { field: 'price', text: false, reverse: false },
    max_price: { field: 'price', text: false, reverse: true },
    ...both('ref', 'ref', true),
    ...both('created', 'createdAt'),
    ...both('updated', 'updatedAt'),
    ...both('visible', 'visible'),
  },
  defaultOrder: () => 'id',
  document: (p) => ({
    id: p.id,
    values: {
      price: decimalKey(p.price),
      weight: decimalKey(p.weight),
      visible: Number(p.visible),
      defaultCategory: p.defaultCategory,
      brandId: p.brandId,
      taxRuleId: p.taxRuleId,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    },
    texts: { ref: fold(p.ref), ...Object.fromEntries(TEXT_FIELDS.map((field) => [field, localized(p, field)])) },
  }),
});

const oneId = (value: unknown): number | undefined => (Array.isArray(value) && value.length === 1 ? (value[0] as number) : undefined);

/** What the table serves, first match first. */
export const productRoutes: readonly TableRoute<Product>[] = [
  // A ref names at most one product: its lock, whatever else is asked.
  {
    requires: ['ref'],
    serves: 'any',
    orders: 'any',
    read: async (args) => ({ items: [await products.findByLock('ref', args.ref as string)].filter((found) => found !== undefined) }),
  },
  { serves: [], orders: ['id', 'id_reverse', 'ref', 'ref_reverse'], read: (_args, order, page) => products.list('all', tableOrder(order), page) },
  { serves: [], orders: ['min_price', 'max_price'], read: (_args, order, page) => products.list('byPrice', { order: 'price', reverse: order === 'max_price' }, page) },
  {
    serves: ['updated_since'],
    orders: ['updated', 'updated_reverse'],
    read: (args, order, page) => products.list('byUpdate', { ...tableOrder(order), from: args.updated_since as string | undefined }, page),
  },
  {
    serves: ['created_since'],
    orders: ['created', 'created_reverse'],
    read: (args, order, page) => products.list('byCreation', { ...tableOrder(order), from: args.created_since as string | undefined }, page),
  },
  {
    requires: ['visible'],
    serves: [],
    orders: ['id', 'id_reverse', 'ref', 'ref_reverse'],
    read: (args, order, page) => products.list('byVisibility', { ...tableOrder(order), where: { visible: args.visible === '1' } }, page),
  },
  ...(['category', 'category_default'] as const).map(
    (name): TableRoute<Product> => ({
      requires: [name],
      when: (args) => oneId(args[name]) !== undefined,
      serves: [],
      orders: ['id', 'id_reverse'],
      read: (args, order, page) => products.list('byCategory', { ...tableOrder(order), where: { defaultCategory: present(oneId(args[name]), `the one ${name}`) } }, page),
    }),
  ),
];

export const ProductListQuery = listQuerySchema(productList, { lang: langParam() });
export type ProductListInput = v.InferOutput<typeof ProductListQuery>;

/** A page of products: the table or the index picks the records, then the rules' version, read beside them, prices them. */
export async function listProducts(query: ProductListInput, page: PageRequest): Promise<Page<Row>> {
  const reading = { locale: localeOf(query.lang), fallback: defaultLang.locale };
  const listed = runList({ list: productList, routes: productRoutes, args: query, reading, readMany: (ids) => products.readMany(ids), engine: searchEngine(), id: (p) => p.id }, page);
  const [found, version] = await Promise.all([listed, taxRulesVersion.read()]);
  const rules = await taxRulesAt(
    version,
    found.items.map((p) => p.taxRuleId),
  );
  return mapPage(found, (p) => productRow(p, reading.locale, rules.get(p.taxRuleId)));
}
