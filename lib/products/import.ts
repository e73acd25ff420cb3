/**
 * What products are to a store's import (docs/moving-from-thelia.md, lib/import/kind.ts): Thelia's `product` rows
 * with their texts, their default sale element priced in the shop's default currency and their
 * default category, mapped through the API's own create schema, after the tax rules and categories
 * they name; written many to a transaction, each counted into its rule and its category as the API's
 * create counts it. Tooling: only `npm run import` loads it.
 */
import * as v from 'valibot';
import { categories } from '../categories/entity.js';
import { brands } from '../brands/entity.js';
import { brandReferences } from '../brands/references.js';
import { categoryGone } from '../categories/import.js';
import { countReferenceStep } from '../categories/references.js';
import { Conflict } from '../db/errors.js';
import { contentOf, countedInto } from '../import/destination.js';
import { defineImportKind, type ImportContext } from '../import/kind.js';
import { changedTexts, datesOf, list, localizedTexts, problemsOf, type Mapped, type Normalization, type Problem } from '../import/mapping.js';
import { catalogueTexts, dateOf, groupBy, numberOrNull, type TheliaCatalogTexts, type TheliaSource } from '../import/source.js';
import { currencyIds } from '../reference/index.js';
import { countProductStep } from '../tax-rules/operations.js';
import { products, type Product } from './entity.js';
import { referenceMoves, deleteProduct, followingSaleElement, newProduct } from './operations.js';
import { defaultSaleElementOf, saleElementCount, saleElements } from './sale-elements.js';
import { readSettled } from './stock-takes.js';
import { createSteps } from '../db/sharded-count.js';
import { present } from '../present.js';
import { ProductGeneral, ProductTexts } from './schema.js';

export interface TheliaProduct {
  id: number;
  ref: string;
  visible: number;
  brandId: number | null;
  taxRuleId: number | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: TheliaCatalogTexts[];
  /** The default sale elements (`is_default = 1`), each with its price in the default currency (null when it has none). */
  defaultSaleElements: { id: number; weight: number | null; price: string | null }[];
  /** The categories marked `default_category = 1`. */
  defaultCategories: number[];
}

/** The shop's default currencies (`by_default = 1`): one in a sound store. */
async function defaultCurrencies(source: TheliaSource): Promise<number[]> {
  return (await source.select('SELECT id FROM currency WHERE by_default = 1 ORDER BY id')).map((row) => Number(row.id));
}

/** Products with their texts, default sale elements (priced in `currencyId`) and default categories. */
async function* productRows(source: TheliaSource, size: number, currencyId: number | undefined): AsyncGenerator<TheliaProduct[]> {
  for await (const products of source.idBatches('product', 'id, ref, visible, brand_id, tax_rule_id, created_at, updated_at', size)) {
    const ids = products.map((p) => Number(p.id));
    const [i18n, saleElements, categories] = await Promise.all([
      source.select('SELECT id, locale, title, chapo, description, postscriptum FROM product_i18n WHERE id IN (?) ORDER BY id, locale', [ids]),
      source.select(
        `SELECT pse.product_id, pse.id, pse.weight, pp.price
           FROM product_sale_elements pse
           LEFT JOIN product_price pp ON pp.product_sale_elements_id = pse.id AND pp.currency_id = ?
          WHERE pse.product_id IN (?) AND pse.is_default = 1
          ORDER BY pse.product_id, pse.id`,
        [currencyId ?? 0, ids],
      ),
      source.select('SELECT product_id, category_id FROM product_category WHERE product_id IN (?) AND default_category = 1 ORDER BY product_id, category_id', [ids]),
    ]);
    const textsOf = groupBy(i18n, 'id', catalogueTexts);
    const saleElementsOf = groupBy(saleElements, 'product_id', (r) => ({
      id: Number(r.id),
      weight: numberOrNull(r.weight),
      price: r.price === null ? null : String(r.price),
    }));
    const categoriesOf = groupBy(categories, 'product_id', (r) => Number(r.category_id));
    yield products.map((p) => ({
      id: Number(p.id),
      ref: String(p.ref),
      visible: Number(p.visible),
      brandId: numberOrNull(p.brand_id),
      taxRuleId: numberOrNull(p.tax_rule_id),
      createdAt: dateOf(p.created_at),
      updatedAt: dateOf(p.updated_at),
      i18n: textsOf.get(Number(p.id)) ?? [],
      defaultSaleElements: saleElementsOf.get(Number(p.id)) ?? [],
      defaultCategories: categoriesOf.get(Number(p.id)) ?? [],
    }));
  }
}

/** What the products' mapping needs to know of the rest of the store. */
export interface ProductContext {
  /** The shop's default currency, or why there is none to use. */
  currency: { id: number } | { problem: string };
  /** Why a tax rule cannot be used (skipped, or not in the store); undefined when it can. */
  taxRuleProblem: (id: number) => string | undefined;
}

const PRODUCT_COLUMNS: Record<string, string> = {
  ref: 'product.ref',
  default_category: 'product_category.category_id',
  price: 'product_price.price',
  currency: 'currency.id',
  tax_rule: 'product.tax_rule_id',
  weight: 'product_sale_elements.weight',
  visible: 'product.visible',
  brand_id: 'product.brand_id',
};

export function mapProduct(product: TheliaProduct, context: ProductContext): Mapped<Product> {
  const problems: Problem[] = [];
  const dates = datesOf('product', product, problems);
  if (product.taxRuleId === null) problems.push({ field: 'product.tax_rule_id', message: 'is empty: the API needs a tax rule for every product' });
  else {
    const ruleProblem = context.taxRuleProblem(product.taxRuleId);
    if (ruleProblem) problems.push({ field: 'product.tax_rule_id', message: `tax rule ${product.taxRuleId} ${ruleProblem}` });
  }
  if ('problem' in context.currency) problems.push({ field: 'currency.by_default', message: context.currency.problem });
  const [saleElement, ...otherSaleElements] = product.defaultSaleElements;
  if (!saleElement) problems.push({ field: 'product_sale_elements.is_default', message: 'the product has no default sale element' });
  else if (otherSaleElements.length)
    problems.push({
      field: 'product_sale_elements.is_default',
      message: `the product has ${product.defaultSaleElements.length} default sale elements (${list(product.defaultSaleElements.map((e) => e.id))})`,
    });
  else if (saleElement.price === null && 'id' in context.currency && currencyIds.has(context.currency.id)) {
    // (An unknown currency is the problem to fix first: the schema names it below.)
    problems.push({ field: 'product_price.price', message: `sale element ${saleElement.id} has no price in the default currency (${context.currency.id})` });
  }
  if (product.defaultCategories.length > 1)
    problems.push({ field: 'product_category.default_category', message: `the product has ${product.defaultCategories.length} default categories (${list(product.defaultCategories)})` });
  const normalized: Normalization[] = [];
  const i18n = localizedTexts(product.i18n, { table: 'product_i18n', row: product.id }, ProductTexts, problems, normalized);

  const parsed = v.safeParse(ProductGeneral, {
    ref: product.ref,
    default_category: product.defaultCategories[0] ?? 0,
    price: saleElement?.price ?? '0',
    currency: 'id' in context.currency ? context.currency.id : 0,
    tax_rule: product.taxRuleId ?? 0,
    weight: saleElement?.weight ?? 0,
    visible: product.visible,
    brand_id: product.brandId ?? 0,
  });
  if (!parsed.success) {
    // The price, currency and rule already have their own problem when missing.
    const known = new Set([...problems.map((problem) => problem.field), ...('problem' in context.currency ? ['currency.id'] : [])]);
    problems.push(...problemsOf(parsed.issues, ([field]) => PRODUCT_COLUMNS[String(field)] ?? String(field)).filter((problem) => !known.has(problem.field)));
  }
  if (!parsed.success || problems.length || !dates) return { problems };
  normalized.push(...changedTexts({ table: 'product', row: product.id }, { ref: product.ref }, parsed.output, ['ref']));
  if (saleElement?.weight === null) normalized.push({ table: 'product_sale_elements', row: saleElement.id, column: 'weight', what: 'empty: 0', before: null, after: 0 });
  // Its default sale element keeps Thelia's id (docs/api.md), made as the API's create makes it.
  const record = { ...newProduct(parsed.output, { id: product.id, taxRuleId: parsed.output.tax_rule, i18n, ...dates }), defaultPseId: present(saleElement, 'the default sale element').id };
  return { record, normalized };
}

/** What a product's write finds gone, by the Conflict field its steps name: the Thelia column at fault. */
const GONE = { taxRule: 'product.tax_rule_id', category: 'product_category.category_id', brand: 'product.brand_id' } as const;
const ruleGone = (id: number) => () => new Conflict(`tax rule ${id} is no longer in the table`, 'taxRule');
const brandGone = (id: number) => () => new Conflict(`brand ${id} is no longer in the table`, 'brand');
/** Whether a product is counted among its category's or its brand's references, and which sale element is its default, is the table's bookkeeping, not its content. */
const BOOKKEEPING = ['categoryCounted', 'brandCounted', 'defaultPseId'];
const sameProduct = (stored: Product, imported: Product) => contentOf(stored, BOOKKEEPING) === contentOf(imported, BOOKKEEPING);

/** The mapping's context for this run: the shop's default currency, and the rules the products name. */
async function productContext(source: TheliaSource, context: ImportContext): Promise<ProductContext> {
  const currencies = await defaultCurrencies(source);
  const [currency] = currencies;
  return {
    currency:
      currencies.length === 1 && currency !== undefined
        ? { id: currency }
        : { problem: currencies.length ? `the source has ${currencies.length} default currencies (${currencies.join(', ')})` : 'the source has no default currency' },
    taxRuleProblem: (id) => context.problemOf('tax rule', id),
  };
}

export const importKind = defineImportKind<TheliaProduct, Product>({
  kind: 'product',
  table: 'product',
  after: ['tax rule', 'category', 'brand'],
  absent: 'is not a product of the source',
  counter: products.counter,
  alsoCounts: [{ table: 'product_sale_elements', counter: present(saleElements.counter, 'the counter of sale elements') }],
  async begin(source, size, context) {
    const mapping = await productContext(source, context);
    return { batches: productRows(source, size, 'id' in mapping.currency ? mapping.currency.id : undefined), map: (product) => mapProduct(product, mapping) };
  },
  writer: {
    readMany: (ids) => products.readMany(ids),
    /**
     * A product is counted in its default category and its brand when the table has them; one whose
     * category or brand the source lacks keeps the id uncounted, as products stored before do.
     */
    async prepare(records) {
      const [categoriesFound, brandsFound] = await Promise.all([
        categories.readMany(records.flatMap((p) => (p.defaultCategory ? [p.defaultCategory] : []))),
        brands.readMany(records.flatMap((p) => (p.brandId ? [p.brandId] : []))),
      ]);
      const [categoryIds, brandIds] = [new Set(categoriesFound.map((c) => c.id)), new Set(brandsFound.map((b) => b.id))];
      return records.map((p) => ({ ...p, categoryCounted: categoryIds.has(p.defaultCategory), brandCounted: brandIds.has(p.brandId) }));
    },
    steps: (stamp, records) => [
      ...products.create(stamp, ...records),
      // Their default sale elements, one count of the kind for all (one operation an item).
      ...saleElements.create(stamp, ...records.map((p) => defaultSaleElementOf(p, present(p.defaultPseId, `the default sale element of ${p.id}`)))),
      ...records.flatMap((p) => createSteps(saleElementCount(p.id), 1)),
      ...countedInto(
        records,
        (p) => p.taxRuleId,
        (ruleId, firstId, count) => countProductStep(ruleId, firstId, count, ruleGone(ruleId)),
      ),
      ...countedInto(
        records,
        (p) => (p.categoryCounted ? p.defaultCategory : undefined),
        (categoryId, firstId, count) => countReferenceStep(categoryId, firstId, count, categoryGone(categoryId, 'category')),
      ),
      ...countedInto(
        records,
        (p) => (p.brandCounted ? p.brandId : undefined),
        (brandId, firstId, count) => brandReferences.countStep(brandId, firstId, count, brandGone(brandId)),
      ),
    ],
    async updateSteps(stamp, stored, next) {
      const moves =
        stored.taxRuleId === next.taxRuleId
          ? []
          : [
              countProductStep(stored.taxRuleId, stored.id, -1, () => new Conflict(`tax rule ${stored.taxRuleId} is no longer in the table`)),
              countProductStep(next.taxRuleId, next.id, 1, ruleGone(next.taxRuleId)),
            ];
      // The table's default sale element stays the product's, and follows a new price or weight.
      const kept = { ...next, ...(stored.defaultPseId === undefined ? {} : { defaultPseId: stored.defaultPseId }) };
      // Read after the takes pending in it are recorded: its replace requires its log empty.
      const [element] = stored.defaultPseId === undefined ? [] : await readSettled([stored.defaultPseId]);
      // A default nobody changed since the import wrote it stays the import's as it follows: the sale
      // elements' kind, later in the run, then finds it untouched and brings the rest of the source's row.
      const following = element && element.importedVersion === element.version ? { ...element, importedVersion: element.version + 1 } : element;
      return [...products.replace(stamp, stored, kept, stored.version), ...moves, ...referenceMoves(stored, kept), ...followingSaleElement(stamp, stored, kept, following, kept.updatedAt)];
    },
    same: sameProduct,
    unique: { column: 'product.ref', valueOf: (p) => p.ref, lockKey: (ref) => products.lockKey('ref', ref), ownerOf: (lock) => products.lockOwner(lock) },
    references: GONE,
    // Nine steps a product (the record, its ref lock, its change and the change's marker; its default sale
    // element's four and the count of its sale elements), two for the record counts, and one for each of
    // the products' rules, categories and brands (at most 21 here): 86.
    perTransaction: 7,
  },
  pages: () => products.pages(),
  remove: deleteProduct,
  frees: (product) => ({ kind: 'tax rule', id: product.taxRuleId }),
});
