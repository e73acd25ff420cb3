/**
 * Product operations. A product's tax rule must exist when it is written: the transaction counts the
 * product into the rule's `productCount` on condition that the rule exists, which is also what lets
 * a rule's deletion refuse (409) without scanning products.
 */
import { readItem } from '../db/items.js';
import { allocateId, countChange, type CountedList } from '../db/counters.js';
import { keys } from '../db/keys.js';
import { toLoop, type LoopResult } from '../db/loop.js';
import { queryIndexPage, singleRecordPage } from '../db/paging.js';
import { atVersion, check, ownedBy, put, putNew, remove, retryOnConflict, versionMismatch, writeAtomically, WriteConflict, type WriteStep } from '../db/transactions.js';
import { conflict, HttpProblem, invalidField, notFound } from '../http/problem.js';
import { localeOf } from '../http/list-query.js';
import { mergeTexts, type Texts } from '../i18n.js';
import { formatMicros } from '../money.js';
import type { Lang } from '../reference/index.js';
import { countProductStep, getDefaultTaxRuleId, getTaxRulesByIds, type TaxRuleItem } from '../tax-rules/index.js';
import { fromItem, LIST_PARTITION, refLockItem, toItem, toRow, visiblePartition, type Product, type ProductText } from './model.js';
import { TEXT_FIELDS, type ProductCreateInput, type ProductListInput, type ProductUpdateInput } from './schema.js';

export const PRODUCTS: CountedList = {
  kind: 'PRODUCT',
  partitions: [
    { index: 'GSI1', partition: LIST_PARTITION },
    { index: 'GSI2', partition: LIST_PARTITION },
  ],
};

const missing = () => notFound('product');
const refTaken = () => conflict('a product already has this ref', 'ref');
const unknownTaxRule = () => invalidField('tax_rule', 'is not an existing tax rule');

async function readProduct(id: number): Promise<Product | undefined> {
  const item = await readItem(keys.product(id));
  return item ? fromItem(item) : undefined;
}

async function readTaxRule(id: number): Promise<TaxRuleItem | undefined> {
  return (await getTaxRulesByIds([id])).get(id);
}

/**
 * The rule a write refers to: `0` is the current default rule, which the transaction then checks is
 * still the default. Returns the steps that count the product into it.
 */
async function resolveTaxRule(requested: number): Promise<{ ruleId: number; steps: WriteStep[] }> {
  if (requested !== 0) return { ruleId: requested, steps: [countProductStep(requested, 1, unknownTaxRule)] };
  const ruleId = await getDefaultTaxRuleId();
  if (ruleId === undefined) throw invalidField('tax_rule', 'is 0 (the default tax rule) but there is no default tax rule');
  return {
    ruleId,
    steps: [
      countProductStep(ruleId, 1, () => new WriteConflict()),
      check(keys.defaultTaxRule(), { expression: 'ruleId = :id', values: { ':id': ruleId } }, () => new WriteConflict()),
    ],
  };
}

const textsOf = (input: Partial<Record<ProductText, string | undefined>>): Texts<ProductText> =>
  Object.fromEntries(TEXT_FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]])) as Texts<ProductText>;

export async function getProduct(id: number, lang: Lang | undefined): Promise<LoopResult> {
  const product = await readProduct(id);
  if (!product) throw missing();
  return toLoop([toRow(product, localeOf(lang), await readTaxRule(product.taxRuleId))]);
}

async function productByRef(ref: string): Promise<Product | undefined> {
  const lock = await readItem(keys.productRef(ref));
  return lock ? readProduct(Number(lock.productId)) : undefined;
}

export async function listProducts(query: ProductListInput, path: string): Promise<LoopResult> {
  const locale = localeOf(query.lang);
  let products: Product[];
  let headers: Record<string, string> = {};
  if (query.ref !== undefined) {
    // A ref names at most one product: served by its uniqueness item.
    const found = await productByRef(query.ref);
    products = singleRecordPage(found && (query.visible === '*' || found.visible === (query.visible === '1')) ? found : undefined, query);
  } else {
    const byRef = query.order.startsWith('ref');
    const filtered = query.visible !== '*';
    const page = await queryIndexPage(
      {
        index: filtered ? (byRef ? 'GSI4' : 'GSI3') : byRef ? 'GSI2' : 'GSI1',
        partition: filtered ? visiblePartition(query.visible === '1') : LIST_PARTITION,
        forward: !query.order.endsWith('_reverse'),
        counted: !filtered,
        scope: `products|${query.order}|visible=${query.visible}`,
        path,
        query: { order: query.order, visible: query.visible, ...(query.lang ? { lang: query.lang.locale } : {}) },
      },
      query,
    );
    products = page.items.map(fromItem);
    headers = page.headers;
  }
  const rules = await getTaxRulesByIds(products.map((p) => p.taxRuleId));
  return toLoop(products.map((p) => toRow(p, locale, rules.get(p.taxRuleId))), headers);
}

export async function createProduct(input: ProductCreateInput, lang: Lang | undefined): Promise<LoopResult> {
  const { ruleId, steps: ruleSteps } = await resolveTaxRule(input.tax_rule);
  const rule = await readTaxRule(ruleId);
  if (!rule) throw unknownTaxRule();
  const id = await allocateId(PRODUCTS);
  const now = new Date().toISOString();
  const product: Product = {
    id,
    ref: input.ref,
    price: formatMicros(input.price),
    weight: formatMicros(input.weight ?? 0n),
    currency: input.currency,
    taxRuleId: ruleId,
    visible: input.visible ?? false,
    brandId: input.brand_id ?? 0,
    defaultCategory: input.default_category,
    i18n: { [input.locale]: textsOf(input) },
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await retryOnConflict(() =>
    writeAtomically([
      putNew(refLockItem(product), refTaken),
      putNew(toItem(product), () => new HttpProblem(409, `product ${id} already exists`)),
      ...ruleSteps,
      ...countChange(PRODUCTS, 1),
    ]),
  );
  return toLoop([toRow(product, localeOf(lang, input.locale), rule)]);
}

export async function updateProduct(id: number, input: ProductUpdateInput, expectedVersion: number | undefined): Promise<void> {
  await retryOnConflict(async () => {
    const current = await readProduct(id);
    if (!current) throw missing();
    const steps: WriteStep[] = [];
    let taxRuleId = current.taxRuleId;
    if (input.tax_rule !== undefined) {
      const resolved = await resolveTaxRule(input.tax_rule);
      if (resolved.ruleId !== current.taxRuleId) {
        taxRuleId = resolved.ruleId;
        steps.push(...resolved.steps, countProductStep(current.taxRuleId, -1, () => new WriteConflict()));
      }
    }
    const texts = textsOf(input);
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
      i18n: input.locale && Object.keys(texts).length ? mergeTexts(current.i18n, input.locale, texts) : current.i18n,
      version: current.version + 1,
      updatedAt: new Date().toISOString(),
    };
    if (input.locale && !current.i18n[input.locale] && !next.i18n[input.locale]?.title) {
      throw invalidField('title', 'is required for a new locale');
    }
    steps.unshift(put(toItem(next), atVersion(expectedVersion, current.version), versionMismatch(expectedVersion, 'product')));
    if (next.ref.toLowerCase() !== current.ref.toLowerCase()) {
      steps.push(
        remove(keys.productRef(current.ref), ownedBy('productId', id), () => new WriteConflict()),
        putNew(refLockItem(next), refTaken),
      );
    } else if (next.ref !== current.ref) {
      steps.push(put(refLockItem(next), ownedBy('productId', id), () => new WriteConflict()));
    }
    await writeAtomically(steps);
  });
}

export async function deleteProduct(id: number, expectedVersion: number | undefined): Promise<void> {
  await retryOnConflict(async () => {
    const current = await readProduct(id);
    if (!current) throw missing();
    await writeAtomically([
      remove(keys.product(id), atVersion(expectedVersion, current.version), versionMismatch(expectedVersion, 'product')),
      remove(keys.productRef(current.ref), ownedBy('productId', id), () => new WriteConflict()),
      countProductStep(current.taxRuleId, -1, () => new WriteConflict()),
      ...countChange(PRODUCTS, -1),
    ]);
  });
}
