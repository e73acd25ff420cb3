/**
 * What product sale elements are to a store's import (docs/moving-from-thelia.md, docs/api.md; lib/import/kind.ts):
 * Thelia's `product_sale_elements` rows with their `product_price` in every currency (promo prices and
 * `from_default_currency` kept) and their `attribute_combination`, ids kept, after the products and
 * attribute values they name. Tooling: only `npm run import` loads it.
 *
 * A product's default sale element is made with the product (its kind writes the product and its
 * default in one transaction, as the API's create does, under Thelia's id): this kind then takes that
 * record's place with the whole source row, as long as nobody changed it since. Every other sale
 * element is created as the API's create writes one, counted into its product (at most
 * MAX_SALE_ELEMENTS) and into its attribute values. Which sale element is a product's default is the
 * table's bookkeeping here: the import never moves the flag (a product is never without its default,
 * nor with two, between two records' writes); the API's `isdefault` moves it.
 */
import * as v from 'valibot';
import { attributeAvReferences } from '../attribute-avs/references.js';
import { Conflict } from '../db/errors.js';
import { referenceSetMoveSteps } from '../db/reference-count.js';
import { addStep } from '../db/sharded-count.js';
import { raced } from '../db/transactions.js';
import { contentOf, countedInto } from '../import/destination.js';
import { defineImportKind, type ImportContext } from '../import/kind.js';
import { datesOf, problemsOf, type Mapped, type Normalization, type Problem } from '../import/mapping.js';
import { dateOf, groupBy, type Row, type TheliaSource } from '../import/source.js';
import { formatMicros } from '../money.js';
import { MAX_DECIMAL } from '../products/schema.js';
import { MAX_ATTRIBUTE_VALUES, MAX_SALE_ELEMENTS, saleElementCount, saleElements, type SaleElement } from '../products/sale-elements.js';
import { readSettled } from '../products/stock-takes.js';
import { currencyIds } from '../reference/index.js';
import { decimal, identifier } from '../validation.js';
import { deletePse } from './operations.js';
import { isGtin } from './schema.js';

/** A source's sale element: its row, its prices by currency and its attribute values (by their attribute's position). */
export interface TheliaSaleElement {
  id: number;
  row: Row;
  prices: Row[];
  values: { attributeId: number; valueId: number }[];
}

/** Sale elements with their prices and combinations, in batches by id. */
async function* saleElementRows(source: TheliaSource, size: number): AsyncGenerator<TheliaSaleElement[]> {
  const hasCombinations = await source.has('attribute_combination');
  for await (const rows of source.idBatches('product_sale_elements', 'id, product_id, ref, quantity, promo, newness, weight, is_default, ean_code, created_at, updated_at', size)) {
    const ids = rows.map((row) => Number(row.id));
    const [prices, combinations] = await Promise.all([
      source.select(
        'SELECT product_sale_elements_id, currency_id, price, promo_price, from_default_currency FROM product_price WHERE product_sale_elements_id IN (?) ORDER BY product_sale_elements_id, currency_id',
        [ids],
      ),
      hasCombinations
        ? source.select(
            `SELECT ac.product_sale_elements_id, ac.attribute_id, ac.attribute_av_id
               FROM attribute_combination ac LEFT JOIN attribute a ON a.id = ac.attribute_id
              WHERE ac.product_sale_elements_id IN (?)
              ORDER BY ac.product_sale_elements_id, a.position, ac.attribute_id, ac.attribute_av_id`,
            [ids],
          )
        : [],
    ]);
    const pricesOf = groupBy(prices, 'product_sale_elements_id', (row) => row);
    const valuesOf = groupBy(combinations, 'product_sale_elements_id', (row) => ({ attributeId: Number(row.attribute_id), valueId: Number(row.attribute_av_id) }));
    yield rows.map((row) => ({ id: Number(row.id), row, prices: pricesOf.get(Number(row.id)) ?? [], values: valuesOf.get(Number(row.id)) ?? [] }));
  }
}

/** A FLOAT column (Thelia's quantity and weight) as the plain decimal it stands for, to 6 fraction digits. */
const floatText = (value: unknown): string | undefined => (value === null || value === undefined ? undefined : Number(value).toFixed(6));

const SaleElementFields = v.object({ ref: identifier(), quantity: decimal(MAX_DECIMAL), weight: decimal(MAX_DECIMAL) });
const PriceFields = v.object({ price: decimal(MAX_DECIMAL), promo_price: decimal(MAX_DECIMAL) });

/** The prices of a sale element by currency, each checked as the API's own decimals are. */
function pricesOf(element: TheliaSaleElement, problems: Problem[]): SaleElement['prices'] {
  const prices: SaleElement['prices'] = {};
  for (const row of element.prices) {
    const currency = Number(row.currency_id);
    if (!currencyIds.has(currency)) {
      problems.push({ field: 'product_price.currency_id', message: `${currency} is not a known currency id` });
      continue;
    }
    const parsed = v.safeParse(PriceFields, { price: String(row.price), promo_price: String(row.promo_price) });
    if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `product_price[${currency}].${String(field)}`));
    else prices[currency] = { price: formatMicros(parsed.output.price), promoPrice: formatMicros(parsed.output.promo_price), fromDefault: Number(row.from_default_currency) === 1 };
  }
  if (!element.prices.length) problems.push({ field: 'product_price', message: 'the sale element has no price in any currency' });
  return prices;
}

/** Its attribute values: each one the import keeps, one per attribute, at most MAX_ATTRIBUTE_VALUES. */
function valuesOf(element: TheliaSaleElement, context: ImportContext, problems: Problem[]): number[] {
  for (const { valueId } of element.values) {
    const problem = context.problemOf('attribute value', valueId);
    if (problem) problems.push({ field: 'attribute_combination.attribute_av_id', message: `attribute value ${valueId} ${problem}` });
  }
  const attributes = element.values.map((value) => value.attributeId);
  if (new Set(attributes).size !== attributes.length) problems.push({ field: 'attribute_combination', message: 'holds two values of one attribute' });
  if (element.values.length > MAX_ATTRIBUTE_VALUES)
    problems.push({ field: 'attribute_combination', message: `holds ${element.values.length} values: a sale element combines at most ${MAX_ATTRIBUTE_VALUES}` });
  return element.values.map((value) => value.valueId);
}

export function mapSaleElement(element: TheliaSaleElement, context: ImportContext): Mapped<SaleElement> {
  const [problems, normalized]: [Problem[], Normalization[]] = [[], []];
  const { row, id } = element;
  const productId = Number(row.product_id);
  const productProblem = context.problemOf('product', productId);
  if (productProblem) problems.push({ field: 'product_sale_elements.product_id', message: `product ${productId} ${productProblem}` });
  const dates = datesOf('product_sale_elements', { createdAt: dateOf(row.created_at), updatedAt: dateOf(row.updated_at) }, problems);
  const quantity = floatText(row.quantity);
  if (quantity?.startsWith('-')) problems.push({ field: 'product_sale_elements.quantity', message: `${Number(row.quantity)} is below 0: the API never holds a stock below 0` });
  const weight = floatText(row.weight);
  if (weight === undefined) normalized.push({ table: 'product_sale_elements', row: id, column: 'weight', what: 'empty: 0', before: null, after: 0 });
  const parsed = v.safeParse(SaleElementFields, { ref: row.ref, quantity, weight: weight ?? '0' });
  if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `product_sale_elements.${String(field)}`).filter((p) => !problems.some((known) => known.field === p.field)));
  const prices = pricesOf(element, problems);
  const attributeAvs = valuesOf(element, context, problems);
  if (!parsed.success || problems.length || !dates) return { problems };
  const given = row.ean_code === null ? '' : String(row.ean_code).trim();
  // Thelia takes any text for an EAN; the API holds a GTIN or nothing (docs/api.md): the rest of the row is worth more than an EAN that is none.
  const ean = given === '' || isGtin(given) ? given : '';
  if (ean !== (row.ean_code ?? ''))
    normalized.push({ table: 'product_sale_elements', row: id, column: 'ean_code', what: ean ? 'trimmed' : 'not a GTIN with a valid check digit: left empty', before: row.ean_code, after: ean });
  return {
    record: {
      id,
      productId,
      ref: parsed.output.ref,
      ean,
      quantity: formatMicros(parsed.output.quantity),
      weight: formatMicros(parsed.output.weight),
      promo: Number(row.promo) === 1,
      newness: Number(row.newness) === 1,
      isDefault: Number(row.is_default) === 1,
      prices,
      attributeAvs,
      version: 1,
      ...dates,
    },
    normalized,
  };
}

const productGone = (id: number) => () => new Conflict(`product ${id} is no longer in the table`, 'product');
const productFull = (id: number) => () => new Conflict(`product ${id} would have more than ${MAX_SALE_ELEMENTS} sale elements, the most a product has`, 'saleElements');
const valueGone = (id: number) => () => new Conflict(`attribute value ${id} is no longer in the table`, 'attributeAv');

/** Whether a product's default is the table's to say: the flag as stored is kept, and never compared; nor the log of takes (the stock is). */
const BOOKKEEPING = ['isDefault', 'takes'];

export const importKind = defineImportKind<TheliaSaleElement, SaleElement>({
  kind: 'sale element',
  table: 'product_sale_elements',
  after: ['product', 'attribute value'],
  absent: 'is not a sale element of the source',
  counter: saleElements.counter,
  begin: (source, size, context) => Promise.resolve({ batches: saleElementRows(source, size), map: (element) => mapSaleElement(element, context) }),
  writer: {
    // Takes left pending are recorded first: a replace requires the log empty.
    readMany: (ids) => readSettled(ids),
    // A product's default is made with it: one the source has and the table does not yet is another sale element of its product.
    prepare: (records) => Promise.resolve(records.map((element) => ({ ...element, isDefault: false }))),
    steps: (stamp, records) => [
      ...saleElements.create(stamp, ...records),
      ...countedInto(
        records,
        (element) => element.productId,
        (productId, firstId, count) => addStep(saleElementCount(productId), firstId, count, { whileExists: productGone(productId), atMost: { max: MAX_SALE_ELEMENTS, full: productFull(productId) } }),
      ),
      ...countedInto(
        records,
        (element) => element.attributeAvs,
        (valueId, firstId, count) => attributeAvReferences.countStep(valueId, firstId, count, valueGone(valueId)),
      ),
    ],
    updateSteps: (stamp, stored, next) => [
      ...saleElements.replace(stamp, stored, { ...next, isDefault: stored.isDefault }, stored.version),
      ...referenceSetMoveSteps(attributeAvReferences, next.id, stored.attributeAvs, next.attributeAvs, { unknown: valueGone, raced }),
    ],
    same: (stored, imported) => contentOf(stored, BOOKKEEPING) === contentOf(imported, BOOKKEEPING),
    /**
     * The default its product's import made (version 1, never the import's own write nor changed
     * since) gives way to the source's row of it, which says more: its ref, EAN, stock and every price.
     */
    replaceable: (stored, imported) =>
      Promise.resolve(stored.isDefault && imported.isDefault && stored.productId === imported.productId && stored.version === 1 && stored.importedVersion === undefined),
    unique: { column: 'product_sale_elements.ref', valueOf: (e) => e.ref, lockKey: (ref) => saleElements.lockKey('ref', ref), ownerOf: (lock) => saleElements.lockOwner(lock) },
    references: { product: 'product_sale_elements.product_id', saleElements: 'product_sale_elements.product_id', attributeAv: 'attribute_combination.attribute_av_id' },
    // Four steps a sale element (the record, its ref lock, its change and the change's marker), one for
    // its product's count and one for each of its values (at most 3): 8, and one for the record count: 97.
    perTransaction: 12,
  },
  pages: () => saleElements.pages(),
  remove: deletePse,
  // A product gone from the source takes its sale elements with it (its delete deletes them).
  ownedBy: (element) => ({ kind: 'product', id: element.productId }),
});
