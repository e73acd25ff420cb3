/**
 * What attribute values are to a store's import (docs/moving-from-thelia.md, docs/api.md; lib/import/kind.ts): Thelia's
 * `attribute_av` rows with their texts (`attribute_av_i18n`), ids kept, after the attributes they are
 * values of (a value whose attribute the import does not keep is skipped, naming why); one with no
 * text at all comes with empty texts (the report says so). Written as the API's create writes them,
 * each counted into its attribute's values. Tooling: only `npm run import` loads it.
 */
import { attributeReferences } from '../attributes/references.js';
import { mapPositioned } from '../attributes/import.js';
import { CATALOG_TEXTS, type CatalogText } from '../catalog-texts.js';
import { Conflict } from '../db/errors.js';
import { sumOf } from '../db/reference-count.js';
import { contentOf, countedInto } from '../import/destination.js';
import { defineImportKind, type ImportContext } from '../import/kind.js';
import type { Mapped, Normalization, Problem } from '../import/mapping.js';
import { rowsWithTexts, type RowWithTexts } from '../import/source.js';
import { attributeAvs, type AttributeAv } from './entity.js';
import { deleteAttributeAv, newAttributeAv } from './operations.js';
import { attributeAvReferences } from './references.js';

export function mapAttributeAv(source: RowWithTexts<CatalogText>, context: ImportContext): Mapped<AttributeAv> {
  const [problems, normalized]: [Problem[], Normalization[]] = [[], []];
  const attributeId = Number(source.row.attribute_id);
  const attributeProblem = context.problemOf('attribute', attributeId);
  if (attributeProblem) problems.push({ field: 'attribute_av.attribute_id', message: `attribute ${attributeId} ${attributeProblem}` });
  const fields = mapPositioned(source, 'attribute_av', problems, normalized);
  return fields && !problems.length ? { record: newAttributeAv({ ...fields, attributeId }), normalized } : { problems };
}

const attributeGone = (id: number) => () => new Conflict(`attribute ${id} is no longer in the table`, 'attribute');

export const importKind = defineImportKind<RowWithTexts<CatalogText>, AttributeAv>({
  kind: 'attribute value',
  table: 'attribute_av',
  after: ['attribute'],
  absent: 'is not an attribute value of the source',
  counter: attributeAvs.counter,
  begin: (source, size, context) =>
    Promise.resolve({
      batches: rowsWithTexts(source, 'attribute_av', 'id, attribute_id, position, created_at, updated_at', CATALOG_TEXTS, size),
      map: (row) => mapAttributeAv(row, context),
    }),
  writer: {
    readMany: (ids) => attributeAvs.readMany(ids),
    steps: (stamp, records) => [
      ...attributeAvs.create(stamp, ...records),
      ...records.flatMap((av) => attributeAvReferences.createSteps(av.id)),
      ...countedInto(
        records,
        (av) => av.attributeId,
        (attributeId, firstId, count) => attributeReferences.countStep(attributeId, firstId, count, attributeGone(attributeId)),
      ),
    ],
    updateSteps: (stamp, stored, next) => [
      ...attributeAvs.replace(stamp, stored, next, stored.version),
      ...(stored.attributeId === next.attributeId
        ? []
        : [
            attributeReferences.countStep(stored.attributeId, stored.id, -1, attributeGone(stored.attributeId)),
            attributeReferences.countStep(next.attributeId, next.id, 1, attributeGone(next.attributeId)),
          ]),
    ],
    same: (stored, imported) => contentOf(stored) === contentOf(imported),
    references: { attribute: 'attribute_av.attribute_id' },
    // A value's record, its change and the change's marker, its count's 16 shards, and its attribute's count; one for the record count.
    perTransaction: 4,
  },
  pages: () => attributeAvs.pages(),
  remove: deleteAttributeAv,
  async inUse(av) {
    const uses = sumOf(await attributeAvReferences.read(av.id));
    return uses > 0 ? `${uses} product sale elements use it` : undefined;
  },
  frees: (av) => ({ kind: 'attribute', id: av.attributeId }),
});
