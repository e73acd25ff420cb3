/**
 * The brand list's loop arguments and orders (docs/api.md: Thelia's brand loop), and what the search
 * index keeps of a brand. The table serves the whole list by id, position, last update or creation
 * (counted), and one brand by its id; `product` is the product's brand, read from the product by
 * the function the route gives (products refer to brands, so brands know nothing of products); the
 * index, the rest.
 */
import type * as v from 'valibot';
import { both, contains, defineList, listQuerySchema, noneOf, oneOf, visibility } from '../db/lists/arguments.js';
import { oneIdRoute, runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { fold } from '../db/lists/query.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { langParam, localeOf, translate } from '../i18n.js';
import { searchEngine } from '../opensearch/index.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { idList, integer } from '../validation.js';
import { BRAND_TEXTS, brands, type Brand } from './entity.js';
import { brandRow } from './row.js';

export const brandList = defineList<Brand>({
  kind: 'brands',
  resource: 'brand',
  arguments: {
    id: oneOf('id', idList(), 'these brands'),
    // Read from the product before the list is planned (listBrands): it becomes `id`.
    product: { schema: integer(1) },
    visible: visibility('visible'),
    title: contains('title', 'the title in `lang` contains this, case- and accent-insensitively'),
    exclude: noneOf('id', idList(), 'leaves these brands out'),
  },
  orders: {
    ...both('id', 'id'),
    ...both('alpha', 'title', true),
    ...both('manual', 'position'),
    ...both('created', 'createdAt'),
    ...both('updated', 'updatedAt'),
  },
  // By position, as Thelia's brand loop orders by default.
  defaultOrder: () => 'manual',
  document: (b) => ({
    id: b.id,
    values: { visible: Number(b.visible), position: b.position, createdAt: b.createdAt, updatedAt: b.updatedAt },
    texts: { title: Object.fromEntries(Object.keys(b.i18n).map((locale) => [locale, fold(translate(b.i18n, locale, BRAND_TEXTS).texts.title)])) },
  }),
});

/** What the table serves, first match first. */
export const brandRoutes: readonly TableRoute<Brand>[] = [
  oneIdRoute('id', (id) => brands.read(id)),
  { serves: [], orders: ['id', 'id_reverse', 'manual', 'manual_reverse'], read: (_args, order, page) => brands.list('all', tableOrder(order), page) },
  { serves: [], orders: ['updated', 'updated_reverse'], read: (_args, order, page) => brands.list('byUpdate', tableOrder(order), page) },
  { serves: [], orders: ['created', 'created_reverse'], read: (_args, order, page) => brands.list('byCreation', tableOrder(order), page) },
];

export const BrandListQuery = listQuerySchema(brandList, { lang: langParam() });
export type BrandListInput = v.InferOutput<typeof BrandListQuery>;

/** How a list finds the brand a product names (0: none, or no such product). */
export type BrandOfProduct = (productId: number) => Promise<number>;

/** `product=N`: the brand of product N as the ids it allows; undefined when it allows none. */
async function withProductsBrand(query: BrandListInput, brandOf: BrandOfProduct): Promise<BrandListInput | undefined> {
  const { product, id } = query as { product?: number; id?: number[] };
  if (product === undefined) return query;
  const brandId = await brandOf(product);
  return brandId !== 0 && (id === undefined || id.includes(brandId)) ? ({ ...query, product: undefined, id: [brandId] } as BrandListInput) : undefined;
}

export async function listBrands(query: BrandListInput, page: PageRequest, brandOf: BrandOfProduct): Promise<Page<Row>> {
  const reading = { locale: localeOf(query.lang), fallback: defaultLang.locale };
  const args = await withProductsBrand(query, brandOf);
  if (!args) return { items: [], total: 0 };
  const found = await runList({ list: brandList, routes: brandRoutes, args, reading, readMany: (ids) => brands.readMany(ids), engine: searchEngine(), id: (b) => b.id }, page);
  return mapPage(found, (b) => brandRow(b, reading.locale));
}
