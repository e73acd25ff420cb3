/**
 * What brands are to a store's import (docs/moving-from-thelia.md, docs/api.md; lib/import/kind.ts): Thelia's `brand` rows
 * with their texts (`brand_i18n`), ids kept, each mapped through the API's own schemas; a brand with
 * no text at all comes with empty texts (the report says so), so that the products naming it keep it.
 * Written as the API's create writes them, with their count of products. Tooling: only `npm run
 * import` loads it.
 */
import * as v from 'valibot';
import { contentOf } from '../import/destination.js';
import { defineImportKind } from '../import/kind.js';
import { datesOf, localizedTexts, problemsOf, type Mapped, type Normalization, type Problem } from '../import/mapping.js';
import { dateOf, rowsWithTexts, type RowWithTexts } from '../import/source.js';
import { sumOf } from '../db/reference-count.js';
import { flag, integer } from '../validation.js';
import { BRAND_TEXTS, brands, type Brand, type BrandText } from './entity.js';
import { deleteBrand, newBrand } from './operations.js';
import { brandReferences } from './references.js';
import { BrandTexts } from './schema.js';

/** A brand's flags as the API's update checks them; Thelia's NULL is 0. */
const BrandImport = v.object({ visible: flag(), position: integer(0) });

export function mapBrand({ id, row, texts }: RowWithTexts<BrandText>): Mapped<Brand> {
  const problems: Problem[] = [];
  const dates = datesOf('brand', { createdAt: dateOf(row.created_at), updatedAt: dateOf(row.updated_at) }, problems);
  const normalized: Normalization[] = [];
  const i18n = localizedTexts(texts, { table: 'brand_i18n', row: id }, v.partial(BrandTexts), problems, normalized, { fields: BRAND_TEXTS, untitled: 'kept' });
  const parsed = v.safeParse(BrandImport, { visible: Number(row.visible ?? 0), position: Number(row.position ?? 0) });
  if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `brand.${String(field)}`));
  if (!parsed.success || problems.length || !dates) return { problems };
  return { record: newBrand({ id, ...parsed.output, i18n, ...dates }), normalized };
}

export const importKind = defineImportKind<RowWithTexts<BrandText>, Brand>({
  kind: 'brand',
  table: 'brand',
  absent: 'is not a brand of the source',
  counter: brands.counter,
  begin: (source, size) =>
    Promise.resolve({
      batches: rowsWithTexts(source, 'brand', 'id, visible, position, created_at, updated_at', BRAND_TEXTS, size),
      map: mapBrand,
    }),
  writer: {
    readMany: (ids) => brands.readMany(ids),
    steps: (stamp, records) => [...brands.create(stamp, ...records), ...records.flatMap((brand) => brandReferences.createSteps(brand.id))],
    updateSteps: (stamp, stored, next) => brands.replace(stamp, stored, next, stored.version),
    same: (stored, imported) => contentOf(stored) === contentOf(imported),
    // A brand's record, its change and the change's marker, and its count's 16 shards; one for the record count.
    perTransaction: 5,
  },
  pages: () => brands.pages(),
  remove: deleteBrand,
  async inUse(brand) {
    const products = sumOf(await brandReferences.read(brand.id));
    return products > 0 ? `${products} products use it` : undefined;
  },
});
