/**
 * Product operations. A product's tax rule must exist when it is written: the transaction counts the
 * product into its shard of the rule's product count on condition that the shard exists (it lives
 * as long as the rule), which is also what lets a rule's deletion refuse (409) without scanning
 * products. Its default category and its brand, when it names them, are counted among their
 * references the same way (lib/db/reference-count.ts). Each write is an operation's reads, then a plan made from them alone (`…Plan`,
 * unit-tested by its steps), committed by whoever runs it (lib/db/write-plan.ts).
 */
import { sentTexts } from '../catalog-texts.js';
import { brandReferences } from '../brands/references.js';
import { categoryReferences } from '../categories/references.js';
import { NotFound } from '../db/errors.js';
import { referenceMoveSteps } from '../db/reference-count.js';
import { createSteps, removeAsReadSteps } from '../db/sharded-count.js';
import { attributeAvReferences } from '../attribute-avs/references.js';
import { raced, type WriteStep } from '../db/transactions.js';
import { plan, planOnce, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField } from '../errors.js';
import { localeOf, mergeTexts } from '../i18n.js';
import { formatMicros } from '../money.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { countProductStep, defaultTaxRule, pricedBy, taxRulesById, type TaxRule } from '../tax-rules/index.js';
import { products, type Product } from './entity.js';
import { defaultSaleElementOf, saleElementCount, saleElements, type ProductSaleElements, type SaleElement } from './sale-elements.js';
import { readSaleElementsOf, readSettled } from './stock-takes.js';
import { productRow } from './row.js';
import type { ProductCreateInput, ProductGeneralInput, ProductUpdateInput } from './schema.js';

const missing = () => new NotFound('product');
const unknownTaxRule = () => invalidField('tax_rule', 'is not an existing tax rule');

async function readProduct(id: number): Promise<Product> {
  const product = await products.read(id);
  if (!product) throw missing();
  return product;
}

const readTaxRule = async (id: number): Promise<TaxRule | undefined> => (await taxRulesById([id])).get(id);

/**
 * The rule a write refers to: `0` is the default rule as the request read it. The transaction does
 * not check the default pointer again: every product write of the store would then include that one
 * item, and DynamoDB would make them take turns on it. A default moved meanwhile was moved during
 * the request, and the product takes the rule that was the default when it was sent.
 */
async function resolveTaxRule(requested: number): Promise<number> {
  if (requested !== 0) return requested;
  const ruleId = await defaultTaxRule.read();
  if (ruleId === undefined) throw invalidField('tax_rule', 'is 0 (the default tax rule) but there is no default tax rule');
  return ruleId;
}

/** The step that counts the product into its rule, failing as an unknown rule when the rule is gone. */
const countInto = (ruleId: number, productId: number) => countProductStep(ruleId, productId, 1, unknownTaxRule);

const unknownCategory = () => invalidField('default_category', 'is not an existing category (0 for none)');
const unknownBrand = () => invalidField('brand_id', 'is not an existing brand (0 for none)');

/**
 * The steps that move a product's reference from the category it is counted in (if any) to
 * `category` (0: none), counting it in on condition that the category exists.
 */
const categorySteps = (productId: number, from: Pick<Product, 'defaultCategory' | 'categoryCounted'> | undefined, category: number): WriteStep[] =>
  referenceMoveSteps(categoryReferences, productId, from && { id: from.defaultCategory, counted: from.categoryCounted === true }, category, { unknown: unknownCategory, raced });

/** The same for its brand. */
const brandSteps = (productId: number, from: Pick<Product, 'brandId' | 'brandCounted'> | undefined, brand: number): WriteStep[] =>
  referenceMoveSteps(brandReferences, productId, from && { id: from.brandId, counted: from.brandCounted === true }, brand, { unknown: unknownBrand, raced });

/** The steps that move a stored product's category and brand references to where `next` has them (the import's updates). */
export const referenceMoves = (stored: Product, next: Product): WriteStep[] => [
  ...(stored.categoryCounted === next.categoryCounted && stored.defaultCategory === next.defaultCategory ? [] : categorySteps(stored.id, stored, next.categoryCounted ? next.defaultCategory : 0)),
  ...(stored.brandCounted === next.brandCounted && stored.brandId === next.brandId ? [] : brandSteps(stored.id, stored, next.brandCounted ? next.brandId : 0)),
];

/** One request when this container has the product's rule cached: the product and the rules' version, in one batch. */
export async function getProduct(id: number, lang: Lang | undefined): Promise<Row> {
  const [[product], rules] = await pricedBy(products.readMany([id]));
  if (!product) throw missing();
  return productRow(product, localeOf(lang), rules.get(product.taxRuleId));
}

/** The page and the rules' version in parallel: one round trip when this container has the rules cached. */
/** What a record's creation sets besides the create's general fields: its id, resolved rule, texts and dates. */
export interface ProductCreation {
  id: number;
  taxRuleId: number;
  i18n: Product['i18n'];
  createdAt: string;
  updatedAt: string;
}

/** A new product record, at version 1, from the create's general fields (the API's, or a store's import). */
export function newProduct(fields: ProductGeneralInput, creation: ProductCreation): Product {
  return {
    id: creation.id,
    ref: fields.ref,
    price: formatMicros(fields.price),
    weight: formatMicros(fields.weight ?? 0n),
    currency: fields.currency,
    taxRuleId: creation.taxRuleId,
    visible: fields.visible ?? false,
    brandId: fields.brand_id ?? 0,
    defaultCategory: fields.default_category,
    categoryCounted: fields.default_category !== 0,
    brandCounted: (fields.brand_id ?? 0) !== 0,
    i18n: creation.i18n,
    version: 1,
    createdAt: creation.createdAt,
    updatedAt: creation.updatedAt,
  };
}

/**
 * A new product's default sale element (docs/api.md) and the count of its sale elements, which starts
 * at that one: the steps of its create, the API's or a store's import.
 */
export const defaultSaleElementSteps = (stamp: WriteStamp, product: Product & { defaultPseId: number }): WriteStep[] => [
  ...saleElements.create(stamp, defaultSaleElementOf(product, product.defaultPseId)),
  ...createSteps(saleElementCount(product.id), 1),
];

/**
 * A create's plan, given its ids (its own and its default sale element's), its rule as read and the
 * instant: the product, its ref lock and counts, its counts in its rule, category and brand (which must
 * exist), and its default sale element.
 */
export function createProductPlan(input: ProductCreateInput, lang: Lang | undefined, made: { id: number; pseId: number; rule: TaxRule; stamp: WriteStamp }): WritePlan<Row> {
  const { id, rule, stamp } = made;
  const product = { ...newProduct(input, { id, taxRuleId: rule.id, i18n: { [input.locale]: sentTexts(input) }, createdAt: stamp.now, updatedAt: stamp.now }), defaultPseId: made.pseId };
  const steps = [
    ...products.create(stamp, product),
    countInto(rule.id, id),
    ...categorySteps(id, undefined, product.defaultCategory),
    ...brandSteps(id, undefined, product.brandId),
    ...defaultSaleElementSteps(stamp, product),
  ];
  return recordedPlan(steps, productRow(product, localeOf(lang, input.locale), rule));
}

/** Planned once: a conflict sends the same product again, under the id it was given. */
export const createProduct = (input: ProductCreateInput, lang: Lang | undefined): Write<Row> =>
  planOnce(async (stamp) => {
    const rule = await readTaxRule(await resolveTaxRule(input.tax_rule));
    if (!rule) throw unknownTaxRule();
    const [id, pseId] = await Promise.all([products.allocateId(), saleElements.allocateId()]);
    return createProductPlan(input, lang, { id, pseId, rule, stamp });
  });

/**
 * An update's plan, given the product and the rule it asks for (resolved: 0 is the default as read):
 * the product replaced at the version expected (else read), its ref lock moved with a new ref, and
 * its counts moved to a new rule, category or brand (which must exist).
 */
export function updateProductPlan(
  input: ProductUpdateInput,
  expectedVersion: number | undefined,
  reads: { current: Product; taxRuleId: number; stamp: WriteStamp; defaultPse?: SaleElement | undefined },
): WritePlan<undefined> {
  const { current, taxRuleId } = reads;
  const id = current.id;
  const ruleSteps = taxRuleId === current.taxRuleId ? [] : [countInto(taxRuleId, id), countProductStep(current.taxRuleId, id, -1, raced)];
  // A default category sent is checked, even unchanged, unless the product is counted in it already.
  const categoryMove = input.default_category === undefined ? [] : categorySteps(id, current, input.default_category);
  // Likewise a brand sent: products stored before brands were checked keep theirs until one is sent.
  const brandMove = input.brand_id === undefined ? [] : brandSteps(id, current, input.brand_id);
  const texts = sentTexts(input);
  const next: Product = {
    ...current,
    ref: input.ref ?? current.ref,
    price: input.price !== undefined ? formatMicros(input.price) : current.price,
    weight: input.weight !== undefined ? formatMicros(input.weight) : current.weight,
    currency: input.currency ?? current.currency,
    taxRuleId,
    visible: input.visible ?? current.visible,
    brandId: input.brand_id ?? current.brandId,
    defaultCategory: input.default_category ?? current.defaultCategory,
    ...(input.default_category === undefined ? {} : { categoryCounted: input.default_category !== 0 }),
    ...(input.brand_id === undefined ? {} : { brandCounted: input.brand_id !== 0 }),
    i18n: input.locale && Object.keys(texts).length ? mergeTexts(current.i18n, input.locale, texts) : current.i18n,
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  if (input.locale && !current.i18n[input.locale] && !next.i18n[input.locale]?.title) throw invalidField('title', 'is required for a new locale');
  // Nothing changed: nothing written, the version kept, no change recorded (a nightly upsert of the same data).
  if (products.unchanged(current, next, expectedVersion)) return plan([], undefined);
  return plan(
    [...products.replace(reads.stamp, current, next, expectedVersion), ...ruleSteps, ...categoryMove, ...brandMove, ...followingSaleElement(reads.stamp, current, next, reads.defaultPse)],
    undefined,
  );
}

/** Whether an update may change what a product's default sale element holds of it: its price in its currency, its weight, its ref. */
const touchesSaleElement = (input: ProductUpdateInput): boolean => input.price !== undefined || input.currency !== undefined || input.weight !== undefined || input.ref !== undefined;

/**
 * The default sale element following its product's new price, currency or weight (docs/api.md): its
 * price in the product's currency set (the others kept), at the version read. A default that still
 * has the product's ref (as made with it) follows a new ref too, so that the former ref is free again
 * for a product and its default. Its `updatedAt` is the write's, unless given (the import's, the source's).
 */
export function followingSaleElement(stamp: WriteStamp, current: Product, next: Product, element: SaleElement | undefined, updatedAt = stamp.now): WriteStep[] {
  const followsRef = element?.ref === current.ref && current.ref !== next.ref;
  if (!element || (!followsRef && current.price === next.price && current.currency === next.currency && current.weight === next.weight)) return [];
  const kept = element.prices[next.currency];
  const prices = { ...element.prices, [next.currency]: { price: next.price, promoPrice: kept?.promoPrice ?? '0.000000', fromDefault: false } };
  return saleElements.replace(stamp, element, { ...element, ref: followsRef ? next.ref : element.ref, weight: next.weight, prices, version: element.version + 1, updatedAt }, undefined);
}

/** It answers nothing (204): the route's answer, as Thelia's. */
export const updateProduct = (id: number, input: ProductUpdateInput, expectedVersion: number | undefined): Write<undefined> =>
  new Write(async (stamp) => {
    const current = await readProduct(id);
    const [taxRuleId, defaultPse] = await Promise.all([
      input.tax_rule === undefined ? current.taxRuleId : resolveTaxRule(input.tax_rule),
      // Read after the takes pending in it are recorded: its replace requires its log empty.
      touchesSaleElement(input) && current.defaultPseId !== undefined ? readSettled([current.defaultPseId]).then(([element]) => element) : undefined,
    ]);
    return updateProductPlan(input, expectedVersion, { current, taxRuleId, stamp, defaultPse });
  });

/**
 * A delete's plan: the product, its ref lock and count, its counts in its rule, category and brand,
 * and its sale elements, each uncounted from its attribute values, with their count as read (one
 * created since fails its condition: read again), so that no sale element outlives its product.
 */
export const deleteProductPlan = (
  stamp: WriteStamp,
  current: Product,
  expectedVersion: number | undefined,
  saleElementsRead: ProductSaleElements = { elements: [], count: undefined },
): WritePlan<void> =>
  plan(
    [
      ...products.remove(stamp, current, expectedVersion),
      countProductStep(current.taxRuleId, current.id, -1, raced),
      ...categorySteps(current.id, current, 0),
      ...brandSteps(current.id, current, 0),
      ...saleElementsRead.elements.flatMap((element) => [
        ...saleElements.remove(stamp, element, undefined),
        ...element.attributeAvs.map((av) => attributeAvReferences.countStep(av, element.id, -1, raced)),
      ]),
      ...(saleElementsRead.count ? removeAsReadSteps(saleElementCount(current.id), saleElementsRead.count, raced) : []),
    ],
    undefined,
  );

export const deleteProduct = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [product, elements] = await Promise.all([readProduct(id), readSaleElementsOf(id)]);
    return deleteProductPlan(stamp, product, expectedVersion, elements);
  });
