/**
 * Brand operations (docs/api.md). A brand that products use cannot be deleted (409), without a
 * scan: the products of it are counted beside it (references.ts), and a product's write counts itself
 * in on condition that the brand's count exists, which proves the brand does.
 *
 * Each write is an operation's reads, then a plan made from them alone (`…Plan`: no table, unit-tested
 * by its steps); whoever runs it commits it (lib/db/write-plan.ts).
 */
import { sentTextsOf, textsAfterUpdate } from '../catalog-texts.js';
import { Conflict, NotFound } from '../db/errors.js';
import { sumOf } from '../db/reference-count.js';
import type { ShardValues } from '../db/sharded-count.js';
import { raced } from '../db/transactions.js';
import { plan, planOnce, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { localeOf } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { BRAND_TEXTS, brands, type Brand } from './entity.js';
import { brandReferences } from './references.js';
import { brandRow } from './row.js';
import type { BrandCreateInput, BrandUpdateInput } from './schema.js';
import { claimPosition } from '../db/positions.js';

const missing = () => new NotFound('brand');

async function readBrand(id: number): Promise<Brand> {
  const brand = await brands.read(id);
  if (!brand) throw missing();
  return brand;
}

/** After the last brand, as Thelia places a new one (one Query), and distinct from every other create's. */
async function nextPosition(): Promise<number> {
  const last = await brands.list('all', { order: 'manual', reverse: true }, { limit: 1, offset: 0 });
  return claimPosition('brand', last.items[0]?.position ?? 0);
}

export async function getBrand(id: number, lang: Lang | undefined): Promise<Row> {
  return brandRow(await readBrand(id), localeOf(lang));
}

/** A new brand record, at version 1 (the API's, or a store's import). */
export const newBrand = (fields: Omit<Brand, 'version'>): Brand => ({ ...fields, version: 1 });

/** A create's plan, given its id and place: the brand and its count of products. */
export function createBrandPlan(input: BrandCreateInput, lang: Lang | undefined, made: { id: number; position: number; stamp: WriteStamp }): WritePlan<Row> {
  const { id, position, stamp } = made;
  const brand = newBrand({ id, visible: input.visible, position, i18n: { [input.locale]: sentTextsOf(BRAND_TEXTS, input) }, createdAt: stamp.now, updatedAt: stamp.now });
  return recordedPlan([...brands.create(stamp, brand), ...brandReferences.createSteps(id)], brandRow(brand, localeOf(lang, input.locale)));
}

/** Planned once: a conflict sends the same brand again, under the id it was given. */
export const createBrand = (input: BrandCreateInput, lang: Lang | undefined): Write<Row> =>
  planOnce(async (stamp) => {
    const [id, position] = await Promise.all([brands.allocateId(), input.position ?? nextPosition()]);
    return createBrandPlan(input, lang, { id, position, stamp });
  });

/** An update's plan: the brand replaced at the version expected (else read), its texts merged per locale. */
export function updateBrandPlan(input: BrandUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined, reads: { current: Brand; stamp: WriteStamp }): WritePlan<Row> {
  const { current } = reads;
  const texts = sentTextsOf(BRAND_TEXTS, input);
  const next: Brand = {
    ...current,
    visible: input.visible ?? current.visible,
    position: input.position ?? current.position,
    i18n: textsAfterUpdate(current.i18n, input.locale, texts),
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  if (brands.unchanged(current, next, expectedVersion)) return plan([], brandRow(current, localeOf(lang, input.locale)));
  return plan(brands.replace(reads.stamp, current, next, expectedVersion), brandRow(next, localeOf(lang, input.locale)));
}

export const updateBrand = (input: BrandUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Write<Row> =>
  new Write(async (stamp) => updateBrandPlan(input, lang, expectedVersion, { current: await readBrand(input.id), stamp }));

/**
 * A delete's plan: refused (409) while products use the brand; else the brand and its count as read
 * (a product counted in since fails a shard's condition: read again).
 */
export function deleteBrandPlan(brand: Brand, references: ShardValues | undefined, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const count = sumOf(references);
  if (count > 0) throw new Conflict(`brand ${brand.id} has ${count} product(s): give them another brand (or 0) or delete them first`);
  return plan([...brands.remove(stamp, brand, expectedVersion), ...brandReferences.removeSteps(brand.id, references, raced)], undefined);
}

export const deleteBrand = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [brand, references] = await Promise.all([readBrand(id), brandReferences.read(id)]);
    return deleteBrandPlan(brand, references, expectedVersion, stamp);
  });
