/**
 * What attributes are to a store's import (docs/moving-from-thelia.md, docs/api.md; lib/import/kind.ts): Thelia's
 * `attribute` rows with their texts (`attribute_i18n`), ids kept, each mapped through the API's own
 * schemas; one with no text at all comes with empty texts (the report says so), so that its values
 * come too. Written as the API's create writes them, with their count of values. Tooling: only `npm
 * run import` loads it.
 */
import * as v from 'valibot';
import { CATALOG_TEXTS, type CatalogText } from '../catalog-texts.js';
import { sumOf } from '../db/reference-count.js';
import { contentOf } from '../import/destination.js';
import { defineImportKind } from '../import/kind.js';
import { datesOf, localizedTexts, problemsOf, type Mapped, type Normalization, type Problem } from '../import/mapping.js';
import { dateOf, rowsWithTexts, type RowWithTexts } from '../import/source.js';
import { integer } from '../validation.js';
import { attributes, positionSteps, type Attribute } from './entity.js';
import { deleteAttribute, newAttribute } from './operations.js';
import { attributeReferences } from './references.js';
import { AttributeCreate } from './schema.js';

/** A record's texts as the import takes them (no title needed) and its position; NULL is 0. */
export const ImportedTexts = v.partial(
  v.object({ title: AttributeCreate.entries.title, chapo: AttributeCreate.entries.chapo, description: AttributeCreate.entries.description, postscriptum: AttributeCreate.entries.postscriptum }),
);
const Position = v.object({ position: integer(0) });

/** A positioned record's texts, dates and position from its Thelia rows, with what kept it out. */
export function mapPositioned({ id, row, texts }: RowWithTexts<CatalogText>, table: string, problems: Problem[], normalized: Normalization[]) {
  const dates = datesOf(table, { createdAt: dateOf(row.created_at), updatedAt: dateOf(row.updated_at) }, problems);
  const i18n = localizedTexts(texts, { table: `${table}_i18n`, row: id }, ImportedTexts, problems, normalized, { untitled: 'kept' });
  const parsed = v.safeParse(Position, { position: Number(row.position ?? 0) });
  if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `${table}.${String(field)}`));
  return parsed.success && dates ? { id, position: parsed.output.position, i18n, ...dates } : undefined;
}

export function mapAttribute(source: RowWithTexts<CatalogText>): Mapped<Attribute> {
  const [problems, normalized]: [Problem[], Normalization[]] = [[], []];
  const fields = mapPositioned(source, 'attribute', problems, normalized);
  return fields && !problems.length ? { record: newAttribute(fields), normalized } : { problems };
}

export const importKind = defineImportKind<RowWithTexts<CatalogText>, Attribute>({
  kind: 'attribute',
  table: 'attribute',
  absent: 'is not an attribute of the source',
  counter: attributes.counter,
  begin: (source, size) => Promise.resolve({ batches: rowsWithTexts(source, 'attribute', 'id, position, created_at, updated_at', CATALOG_TEXTS, size), map: mapAttribute }),
  writer: {
    readMany: (ids) => attributes.readMany(ids),
    steps: (stamp, records) => [...attributes.create(stamp, ...records), ...records.flatMap((attribute) => attributeReferences.createSteps(attribute.id))],
    updateSteps: (stamp, stored, next) => [...attributes.replace(stamp, stored, next, stored.version), ...positionSteps(stored, next)],
    same: (stored, imported) => contentOf(stored) === contentOf(imported),
    // An attribute's record, its change and the change's marker, and its count's 16 shards; one for the record count.
    perTransaction: 5,
  },
  pages: () => attributes.pages(),
  remove: deleteAttribute,
  async inUse(attribute, freed) {
    const values = sumOf(await attributeReferences.read(attribute.id)) - freed;
    return values > 0 ? `it has ${values} value(s)` : undefined;
  },
});
