/**
 * Sale element operations (docs/api.md). A request's entries are one transaction, all or nothing:
 * each product they touch is read with its sale elements and their count, the entries are applied in
 * order to that picture, and the plan writes what changed — the sale elements, the default flag taken
 * from one and given to another, the product following its default's price and weight (and its tax
 * rule, when an entry sets it), the counts of the attribute values each element is made of.
 *
 * Stock is never oversold: a quantity is written at the version it was read at, so that of two
 * writers of one stock the second reads again, and a `quantity_delta` that would take it below 0 is a
 * 409 naming what is left. Stock changes of different sale elements touch different items only.
 */
import { attributeAvs, type AttributeAv } from '../attribute-avs/entity.js';
import { attributeAvReferences } from '../attribute-avs/references.js';
import { attributePositionsVersion } from '../attributes/entity.js';
import { Conflict, NotFound } from '../db/errors.js';
import { addStep } from '../db/sharded-count.js';
import { referenceSetMoveSteps } from '../db/reference-count.js';
import { joinSteps } from '../db/joined-steps.js';
import { namingConflicts, raced, type WriteStep } from '../db/transactions.js';
import { plan, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField, InvalidInput, type FieldError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { formatMicros, storedMicros, removePercents } from '../money.js';
import { present } from '../present.js';
import { products, type Product } from '../products/entity.js';
import { MAX_SALE_ELEMENTS, saleElementCount, saleElements, type ProductSaleElements, type SaleElement } from '../products/sale-elements.js';
import { readSaleElementsOf, readSettled, takeStock } from '../products/stock-takes.js';
import { countProductStep, taxRulesById, type TaxRule } from '../tax-rules/index.js';
import type { Row } from '../row.js';
import { percentsOf } from '../products/row.js';
import { pricesIn, pseRow, type ValueOrder } from './row.js';
import { rowContext, type RowContext } from './row-context.js';
import { valueOrder } from '../attribute-avs/order.js';
import type { PseCreateEntryInput, PseCreateInput, PseQueryInput, PseUpdateEntryInput, PseUpdateInput } from './schema.js';

const ZERO = '0.000000';

/** An entry as applied: a create (with the id it was given) or an update of a sale element as read. */
/** How an entry's fields are named in a problem: `pse[1].price` in a request's entries, `price` in a batch's row. */
export type Naming = (field: string) => string;

type Entry = { field: Naming; create: PseCreateEntryInput; id: number } | { field: Naming; update: PseUpdateEntryInput; id: number };

/** What a request reads: each product its entries touch, with its rule and its sale elements; the attribute values they name; the rules they set. */
export interface PseReads {
  products: ReadonlyMap<number, { product: Product; elements: ProductSaleElements }>;
  rules: ReadonlyMap<number, TaxRule>;
  values: ReadonlyMap<number, AttributeAv>;
  /** The order of the values its elements and entries name: their attributes' as placed now. */
  order: ValueOrder;
  /** The write's stamp: its time is every record's `updatedAt` it writes. */
  stamp: WriteStamp;
}

/** A product being written: as read, and as its entries leave it. */
interface ProductDraft {
  read: Product;
  next: Product;
  /** Its sale elements by id: as read (`before`), and as the entries leave them. */
  before: ReadonlyMap<number, SaleElement>;
  elements: Map<number, SaleElement>;
  created: Set<number>;
}

/** The naming of entry `index` of a request's `pse`. */
export const entryField =
  (index: number): Naming =>
  (field) =>
    `pse[${index}].${field}`;

/** The untaxed price an entry sends (`price`, or `price_with_tax` with the product's rule taken off), in millionths. */
function untaxed(amount: bigint | undefined, withTax: bigint | undefined, rule: TaxRule | undefined): bigint | undefined {
  if (amount !== undefined) return amount;
  return withTax === undefined ? undefined : removePercents(withTax, percentsOf(rule));
}

/**
 * The entry's price fields applied to the element's prices: its currency's price set, the others
 * kept. A new element's entry makes its first price: without one (or `use_exchange_rate`), a 400,
 * never an element sold at 0.
 */
function withPrices(element: SaleElement, entry: PseCreateEntryInput | PseUpdateEntryInput, currency: number, rule: TaxRule | undefined, name: Naming, creating: boolean): SaleElement['prices'] {
  const price = untaxed(entry.price, entry.price_with_tax, rule);
  const promo = untaxed(entry.sale_price, entry.sale_price_with_tax, rule);
  const kept = element.prices[currency];
  if (!creating && price === undefined && promo === undefined && entry.use_exchange_rate === undefined) return element.prices;
  const fromDefault = entry.use_exchange_rate ?? kept?.fromDefault ?? false;
  if (price === undefined && !kept && !fromDefault) throw invalidField(name('price'), 'is required for a currency the sale element has no price in yet (or price_with_tax, or use_exchange_rate)');
  return {
    ...element.prices,
    [currency]: { price: price === undefined ? (kept?.price ?? ZERO) : formatMicros(price), promoPrice: promo === undefined ? (kept?.promoPrice ?? ZERO) : formatMicros(promo), fromDefault },
  };
}

/** The attribute values of an entry, checked (each existing, one per attribute) and ordered by their attribute's position. */
function valuesOf(ids: readonly number[], reads: PseReads, name: Naming): number[] {
  const found = ids.map((id) => reads.values.get(id));
  const missing = ids.filter((_, k) => !found[k]);
  if (missing.length) throw invalidField(name('attribute_av'), `names no attribute value: ${missing.join(', ')}`);
  const values = found as AttributeAv[];
  const attributeIds = values.map((value) => value.attributeId);
  if (new Set(attributeIds).size !== attributeIds.length) throw invalidField(name('attribute_av'), 'holds two values of one attribute');
  return reads.order(ids);
}

/** Makes `id` the product's default, taking the flag from the one that had it. */
function makeDefault(draft: ProductDraft, id: number): void {
  for (const [otherId, element] of draft.elements) if (element.isDefault !== (otherId === id)) draft.elements.set(otherId, { ...element, isDefault: otherId === id });
}

/** One entry applied to its product's draft. */
function applyEntry(draft: ProductDraft, entry: Entry, reads: PseReads): void {
  const input = 'create' in entry ? entry.create : entry.update;
  if (input.tax_rule_id !== undefined) {
    if (!reads.rules.has(input.tax_rule_id)) throw invalidField(entry.field('tax_rule_id'), 'is not an existing tax rule');
    draft.next = { ...draft.next, taxRuleId: input.tax_rule_id };
  }
  const rule = reads.rules.get(draft.next.taxRuleId);
  const current: SaleElement =
    'create' in entry
      ? {
          id: entry.id,
          productId: draft.read.id,
          ref: entry.create.reference,
          ean: '',
          quantity: ZERO,
          weight: ZERO,
          promo: false,
          newness: false,
          isDefault: false,
          prices: {},
          attributeAvs: [],
          version: 1,
          createdAt: reads.stamp.now,
          updatedAt: reads.stamp.now,
        }
      : present(draft.elements.get(entry.id), `sale element ${entry.id} of product ${draft.read.id}`);
  let quantity = input.quantity ?? storedMicros(current.quantity);
  if ('update' in entry && entry.update.quantity_delta !== undefined) {
    quantity += entry.update.quantity_delta;
    if (quantity < 0n)
      throw new Conflict(
        `sale element ${current.id} has ${current.quantity} in stock: a change of ${formatMicros(entry.update.quantity_delta)} would leave less than 0`,
        entry.field('quantity_delta'),
      );
  }
  const next: SaleElement = {
    ...current,
    ref: input.reference ?? current.ref,
    ean: input.ean_code ?? current.ean,
    quantity: formatMicros(quantity),
    weight: input.weight === undefined ? current.weight : formatMicros(input.weight),
    promo: input.onsale ?? current.promo,
    newness: input.isnew ?? current.newness,
    prices: withPrices(current, input, input.currency_id ?? draft.next.currency, rule, entry.field, 'create' in entry),
    attributeAvs: input.attribute_av === undefined ? current.attributeAvs : valuesOf(input.attribute_av, reads, entry.field),
  };
  draft.elements.set(next.id, next);
  if ('create' in entry) draft.created.add(next.id);
  if (input.isdefault === true) makeDefault(draft, next.id);
  if (input.isdefault === false && next.isDefault) throw invalidField(entry.field('isdefault'), 'cannot be taken from the default: make another sale element the default');
}

/** Two sale elements of one product with the same combination of values are one too many (409). */
function checkCombinations(draft: ProductDraft, namingOf: ReadonlyMap<number, Naming>): void {
  const seen = new Map<string, number>();
  for (const element of draft.elements.values()) {
    if (!element.attributeAvs.length) continue;
    const combination = [...element.attributeAvs].sort((a, b) => a - b).join(',');
    const other = seen.get(combination);
    if (other !== undefined) {
      const name = namingOf.get(element.id) ?? namingOf.get(other) ?? entryField(0);
      throw new Conflict(`product ${draft.read.id} already has a sale element made of attribute values ${combination}`, name('attribute_av'));
    }
    seen.set(combination, element.id);
  }
}

/** The product as its default sale element has it: its price in the product's currency, its weight. */
function followingDefault(draft: ProductDraft): Product {
  const element = [...draft.elements.values()].find((candidate) => candidate.isDefault);
  if (!element) return draft.next;
  return { ...draft.next, price: formatMicros(pricesIn(element, draft.next.currency).price), weight: element.weight };
}

const changedSince = (before: SaleElement | undefined, after: SaleElement): boolean => before === undefined || JSON.stringify(before) !== JSON.stringify(after);

/** The steps that move an element's counts in its attribute values from what it was made of to what it is made of. */
const valueCountSteps = (before: readonly number[], after: readonly number[], elementId: number, name: Naming): WriteStep[] =>
  referenceSetMoveSteps(attributeAvReferences, elementId, before, after, {
    unknown: () => () => invalidField(name('attribute_av'), 'names an attribute value that is no longer there'),
    raced,
  });

/** An entry names the unique value the sale element's lock calls `ref` by its own field, `reference`. */
const asEntryField = (name: Naming) => (field: string) => name(field === 'ref' ? 'reference' : field);

/** A product's draft as steps: its new and changed sale elements, their counts, and the product when it follows. */
function draftSteps(draft: ProductDraft, namingOf: ReadonlyMap<number, Naming>, expected: ReadonlyMap<number, number>, stamp: WriteStamp): WriteStep[] {
  const steps: WriteStep[] = [];
  for (const [id, element] of draft.elements) {
    const before = draft.before.get(id);
    const name = namingOf.get(id) ?? entryField(0);
    if (draft.created.has(id)) {
      steps.push(...namingConflicts(saleElements.create(stamp, element), asEntryField(name)), ...valueCountSteps([], element.attributeAvs, id, name));
    } else if (before && changedSince(before, element)) {
      steps.push(
        ...namingConflicts(saleElements.replace(stamp, before, { ...element, version: before.version + 1, updatedAt: stamp.now }, expected.get(id)), asEntryField(name)),
        ...valueCountSteps(before.attributeAvs, element.attributeAvs, id, name),
      );
    }
  }
  // The new ones counted in together (one item: one operation a transaction), within the bound, on condition that the product is still there.
  const [firstCreated] = draft.created;
  if (firstCreated !== undefined) {
    const name = namingOf.get(firstCreated) ?? entryField(0);
    steps.push(
      addStep(saleElementCount(draft.read.id), firstCreated, draft.created.size, {
        whileExists: (current) =>
          current ? new Conflict(`product ${draft.read.id} would have more than ${MAX_SALE_ELEMENTS} sale elements, the most a product has`, name('product_id')) : new NotFound('product'),
        atMost: { max: MAX_SALE_ELEMENTS, full: raced },
      }),
    );
  }
  const product = followingDefault(draft);
  if (product.price !== draft.read.price || product.weight !== draft.read.weight || product.taxRuleId !== draft.read.taxRuleId) {
    const rule = product.taxRuleId;
    const unknownRule = () => invalidField(([...namingOf.values()][0] ?? entryField(0))('tax_rule_id'), 'is not an existing tax rule');
    steps.push(
      ...products.replace(stamp, draft.read, { ...product, version: draft.read.version + 1, updatedAt: stamp.now }, undefined),
      ...(rule === draft.read.taxRuleId ? [] : [countProductStep(rule, product.id, 1, unknownRule), countProductStep(draft.read.taxRuleId, product.id, -1, raced)]),
    );
  }
  return steps;
}

/** The rows of the entries, in their order, as the writes leave them. */
function rowsOf(entries: readonly Entry[], drafts: ReadonlyMap<number, ProductDraft>, draftOf: ReadonlyMap<number, number>, reads: PseReads, query: PseQueryInput | undefined): Row[] {
  return entries.map((entry) => {
    const draft = present(drafts.get(present(draftOf.get(entry.id), `the product of ${entry.id}`)), 'its draft');
    const element = present(draft.elements.get(entry.id), `sale element ${entry.id}`);
    const written = draft.created.has(entry.id) || !changedSince(draft.before.get(entry.id), element) ? element : { ...element, version: element.version + 1, updatedAt: reads.stamp.now };
    const product = followingDefault(draft);
    return pseRow(written, reads.rules.get(product.taxRuleId), query?.currency ?? product.currency, reads.order);
  });
}

/** The plan of a request's entries: every product's draft as steps, one transaction; its answer the entries' rows. */
export function pseEntriesPlan(entries: readonly Entry[], reads: PseReads, query: PseQueryInput | undefined, expected: ReadonlyMap<number, number> = new Map()): WritePlan<Row[]> {
  const drafts = new Map<number, ProductDraft>();
  const draftOf = new Map<number, number>();
  for (const entry of entries) {
    const productId = 'create' in entry ? entry.create.product_id : present(findOwner(reads, entry.id), `the product of sale element ${entry.id}`);
    const found = reads.products.get(productId);
    if (!found) throw invalidField(entry.field('product_id'), 'is not an existing product');
    let draft = drafts.get(productId);
    if (!draft) {
      const before = new Map(found.elements.elements.map((element) => [element.id, element]));
      draft = { read: found.product, next: found.product, before, elements: new Map(before), created: new Set() };
      drafts.set(productId, draft);
    }
    draftOf.set(entry.id, productId);
    applyEntry(draft, entry, reads);
  }
  const namingOf = new Map(entries.map((entry) => [entry.id, entry.field]));
  for (const draft of drafts.values()) checkCombinations(draft, namingOf);
  const steps = [...drafts.values()].flatMap((draft) => draftSteps(draft, namingOf, expected, reads.stamp));
  // As the transaction writes them: the changes' markers of one partition are one write.
  const writes = joinSteps(steps).steps.length;
  if (writes > MAX_ENTRY_STEPS) {
    throw new InvalidInput([
      {
        field: 'pse',
        message: `its ${entries.length} entries make ${writes} writes, more than the ${MAX_ENTRY_STEPS} one request's transaction holds: send fewer entries at once (or POST /api/pse/batch)`,
      },
    ]);
  }
  return plan(steps, rowsOf(entries, drafts, draftOf, reads, query));
}

/** The writes a request's entries may make: one transaction, less the step that records its answer (an Idempotency-Key's, a batch row's). */
const MAX_ENTRY_STEPS = LIMITS.dynamodb.transactionItems - 1;

const findOwner = (reads: PseReads, elementId: number): number | undefined =>
  [...reads.products.values()].find(({ elements }) => elements.elements.some((element) => element.id === elementId))?.product.id;

/** What the entries need read: their products with their sale elements, the rules, the attribute values and the order of every value named. */
async function readFor(productIds: readonly number[], valueIds: readonly number[], ruleIds: readonly number[]): Promise<Omit<PseReads, 'stamp'>> {
  const [found, values, positionsVersion] = await Promise.all([products.readMany([...new Set(productIds)]), attributeAvs.readMany([...new Set(valueIds)]), attributePositionsVersion.read()]);
  const [elements, rules] = await Promise.all([
    Promise.all(found.map((product) => readSaleElementsOf(product.id))),
    taxRulesById([...new Set([...ruleIds, ...found.map((product) => product.taxRuleId)])]),
  ]);
  const stored = elements.flatMap((of) => of.elements.flatMap((element) => element.attributeAvs));
  return {
    products: new Map(found.map((product, k) => [product.id, { product, elements: present(elements[k], `the sale elements of ${product.id}`) }])),
    rules,
    values: new Map(values.map((value) => [value.id, value])),
    order: await valueOrder(positionsVersion, [...values.map((value) => value.id), ...stored], values),
  };
}

const valueIdsOf = (entries: readonly (PseCreateEntryInput | PseUpdateEntryInput)[]) => entries.flatMap((entry) => entry.attribute_av ?? []);
const ruleIdsOf = (entries: readonly (PseCreateEntryInput | PseUpdateEntryInput)[]) => entries.flatMap((entry) => (entry.tax_rule_id === undefined ? [] : [entry.tax_rule_id]));

/** `POST /api/pse`: new sale elements, each under the id given it once (a conflict plans them again from fresh reads under the same ids). */
export function createPse(input: PseCreateInput, query: PseQueryInput | undefined, naming: (index: number) => Naming = entryField): Write<Row[]> {
  let ids: Promise<number[]> | undefined;
  return new Write(async (stamp) => {
    // In the entries' order: ids allocated at once come back in any order.
    ids ??= Promise.all(input.pse.map(() => saleElements.allocateId())).then((allocated) => allocated.sort((a, b) => a - b));
    const [allocated, reads] = await Promise.all([
      ids,
      readFor(
        input.pse.map((entry) => entry.product_id),
        valueIdsOf(input.pse),
        ruleIdsOf(input.pse),
      ),
    ]);
    const entries = input.pse.map((create, index): Entry => ({ field: naming(index), create, id: present(allocated[index], `the id of entry ${index}`) }));
    // A create's rows are recorded with it, for an Idempotency-Key's replay.
    const planned = pseEntriesPlan(entries, { ...reads, stamp }, query);
    return recordedPlan(planned.steps, planned.answer);
  });
}

/**
 * `PUT /api/pse/{pseId}`: the entries' sale elements changed (an entry without `id` is the path's).
 * `If-Match` holds for the path's sale element.
 */
export function updatePse(pseId: number, input: PseUpdateInput, query: PseQueryInput | undefined, expectedVersion: number | undefined, naming: (index: number) => Naming = entryField): Write<Row[]> {
  const ids = input.pse.map((entry) => entry.id ?? pseId);
  if (new Set(ids).size !== ids.length)
    throw new InvalidInput(ids.flatMap((id, index): FieldError[] => (ids.indexOf(id) !== index ? [{ field: entryField(index)('id'), message: `names sale element ${id} twice` }] : [])));
  const entries = (reading: (index: number) => Naming) => input.pse.map((update, index): Entry => ({ field: reading(index), update, id: present(ids[index], `the id of entry ${index}`) }));
  const expected = new Map(expectedVersion === undefined ? [] : [[pseId, expectedVersion]]);
  if (input.pse.every(changesStockOnly)) {
    // A stock change touches nothing beside its sale elements: each attempt reads them alone (their
    // products and rules, for the rows, once), so that writers of one stock meet as seldom as can be.
    let context: Promise<RowContext> | undefined;
    return new Write(async (stamp) => {
      const found = await readElements(pseId, ids, naming);
      context ??= rowContextOf(found);
      const { products: owners, rules, order } = await context;
      const picture = new Map([...owners].map(([id, product]) => [id, { product, elements: { elements: found.filter((element) => element.productId === id), count: undefined } }]));
      return pseEntriesPlan(entries(naming), { products: picture, rules, values: new Map(), order, stamp }, query, expected);
    });
  }
  return new Write(async (stamp) => {
    const found = await readElements(pseId, ids, naming);
    const reads = await readFor(
      found.map((element) => element.productId),
      valueIdsOf(input.pse),
      ruleIdsOf(input.pse),
    );
    return pseEntriesPlan(entries(naming), { ...reads, stamp }, query, expected);
  });
}

/**
 * `PUT /api/pse/{pseId}` as a route answers it: one entry that only adds to or takes from a stock is
 * a take (lib/products/stock-takes.ts: one UpdateItem that no concurrent taker loses, its change
 * recorded after it); any other request is `updatePse`'s transaction.
 */
export function changePse(pseId: number, input: PseUpdateInput, query: PseQueryInput | undefined, expectedVersion: number | undefined): Write<Row[]> | Promise<Row[]> {
  const [entry] = input.pse;
  const delta = entry?.quantity_delta;
  if (input.pse.length !== 1 || !entry || delta === undefined || delta === 0n || !changesStockOnly(entry)) return updatePse(pseId, input, query, expectedVersion);
  const id = entry.id ?? pseId;
  return (async () => {
    const outcome = await takeStock(id, delta, id === pseId ? expectedVersion : undefined, entryField(0)('quantity_delta'), async (taken) => {
      const { products: owners, rules, order } = await rowContextOf([taken]);
      const product = owners.get(taken.productId);
      if (!product) throw new NotFound('product sale element');
      return [pseRow(taken, rules.get(product.taxRuleId), query?.currency ?? product.currency, order)];
    });
    // An element stored before stocks were numbers is changed once by a transaction, which stores its stock as one.
    return 'taken' in outcome ? outcome.taken : updatePse(pseId, input, query, expectedVersion).commit();
  })();
}

/** An entry that changes nothing but a stock (`quantity`, `quantity_delta`): an ERP's sync, an order's take. */
const changesStockOnly = (entry: PseUpdateEntryInput): boolean => Object.keys(entry).every((field) => field === 'id' || field === 'quantity' || field === 'quantity_delta');

/**
 * The sale elements of `ids` (entry `index` names `ids[index]`), read consistently: the path's
 * (`pseId`) not there is a 404; another entry's, a 400 naming that entry's `id`.
 */
async function readElements(pseId: number, ids: readonly number[], naming: (index: number) => Naming): Promise<SaleElement[]> {
  const found = await readSettled(ids);
  const missing = ids.flatMap((id, index) => (found.some((element) => element.id === id) ? [] : [{ id, index }]));
  if (missing.some(({ id }) => id === pseId)) throw new NotFound('product sale element');
  if (missing.length) throw new InvalidInput(missing.map(({ id, index }) => ({ field: naming(index)('id'), message: `names no sale element (${id})` })));
  return found;
}

/** What the rows of sale elements read already need beside them: their products, rules and values' order. */
const rowContextOf = (elements: readonly SaleElement[]): Promise<RowContext> =>
  rowContext(
    elements.map((element) => element.productId),
    Promise.resolve(elements),
  );

/** A delete's plan: the element and its counts; its product's default moved to the lowest-id other one when it was the default; the last one refused (409). */
export function deletePsePlan(element: SaleElement, product: Product, siblings: ProductSaleElements, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const others = siblings.elements.filter((other) => other.id !== element.id).sort((a, b) => a.id - b.id);
  const [heir] = others;
  if (!heir) throw new Conflict(`sale element ${element.id} is the last of product ${product.id}: a product keeps at least one (delete the product instead)`);
  const steps: WriteStep[] = [
    ...saleElements.remove(stamp, element, expectedVersion),
    addStep(saleElementCount(product.id), element.id, -1, { whileExists: raced }),
    ...element.attributeAvs.map((av) => attributeAvReferences.countStep(av, element.id, -1, raced)),
  ];
  if (element.isDefault) {
    const promoted = { ...heir, isDefault: true, version: heir.version + 1, updatedAt: stamp.now };
    steps.push(...saleElements.replace(stamp, heir, promoted, undefined));
    const follows = { ...product, price: formatMicros(pricesIn(promoted, product.currency).price), weight: promoted.weight };
    if (follows.price !== product.price || follows.weight !== product.weight)
      steps.push(...products.replace(stamp, product, { ...follows, version: product.version + 1, updatedAt: stamp.now }, undefined));
  }
  return plan(steps, undefined);
}

export const deletePse = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const element = await saleElements.read(id);
    if (!element) throw new NotFound('product sale element');
    const [product, siblings] = await Promise.all([products.read(element.productId), readSaleElementsOf(element.productId)]);
    if (!product) throw new NotFound('product sale element');
    return deletePsePlan(element, product, siblings, expectedVersion, stamp);
  });

/** One sale element's row, in `currency` (default: its product's). */
export async function getPse(id: number, query: PseQueryInput): Promise<Row[]> {
  const element = await saleElements.read(id);
  if (!element) throw new NotFound('product sale element');
  const { products: owners, rules, order } = await rowContextOf([element]);
  const product = owners.get(element.productId);
  if (!product) throw new NotFound('product sale element');
  return [pseRow(element, rules.get(product.taxRuleId), query.currency ?? product.currency, order)];
}

/** A product's sale elements, by id (404 for an unknown product). */
export async function listPseOfProduct(productId: number, query: PseQueryInput): Promise<Row[]> {
  const listed = saleElements.list('byProduct', { order: 'id', reverse: false, where: { productId } }, { limit: MAX_SALE_ELEMENTS, offset: 0 });
  const {
    products: owners,
    rules,
    order,
    elements,
  } = await rowContext(
    [productId],
    listed.then((page) => page.items),
  );
  const product = owners.get(productId);
  if (!product) throw new NotFound('product');
  return elements.map((element) => pseRow(element, rules.get(product.taxRuleId), query.currency ?? product.currency, order));
}
