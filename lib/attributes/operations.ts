/**
 * Attribute operations (docs/api.md). An attribute that has values cannot be deleted (409), without
 * a scan: its values are counted beside it (references.ts), each value's create counting itself in on
 * condition that the count exists, which proves the attribute does.
 *
 * Each write is an operation's reads, then a plan made from them alone (`…Plan`: no table, unit-tested
 * by its steps); whoever runs it commits it (lib/db/write-plan.ts).
 */
import { sentTexts, textsAfterUpdate } from '../catalog-texts.js';
import { Conflict, NotFound } from '../db/errors.js';
import { sumOf } from '../db/reference-count.js';
import type { ShardValues } from '../db/sharded-count.js';
import { raced } from '../db/transactions.js';
import { plan, planOnce, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { localeOf } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { attributes, positionSteps, type Attribute } from './entity.js';
import { attributeReferences } from './references.js';
import { attributeRow } from './row.js';
import type { AttributeCreateInput, AttributeUpdateInput } from './schema.js';
import { claimPosition } from '../db/positions.js';

async function readAttribute(id: number): Promise<Attribute> {
  const attribute = await attributes.read(id);
  if (!attribute) throw new NotFound('attribute');
  return attribute;
}

/** After the last attribute, as Thelia places a new one (one Query), and distinct from every other create's. */
async function nextPosition(): Promise<number> {
  const last = await attributes.list('all', { order: 'manual', reverse: true }, { limit: 1, offset: 0 });
  return claimPosition('attribute', last.items[0]?.position ?? 0);
}

export async function getAttribute(id: number, lang: Lang | undefined): Promise<Row> {
  return attributeRow(await readAttribute(id), localeOf(lang));
}

/** A new attribute record, at version 1 (the API's, or a store's import). */
export const newAttribute = (fields: Omit<Attribute, 'version'>): Attribute => ({ ...fields, version: 1 });

/** A create's plan, given its id and place: the attribute and its count of values. */
export function createAttributePlan(input: AttributeCreateInput, lang: Lang | undefined, made: { id: number; position: number; stamp: WriteStamp }): WritePlan<Row> {
  const { id, position, stamp } = made;
  const attribute = newAttribute({ id, position, i18n: { [input.locale]: sentTexts(input) }, createdAt: stamp.now, updatedAt: stamp.now });
  return recordedPlan([...attributes.create(stamp, attribute), ...attributeReferences.createSteps(id)], attributeRow(attribute, localeOf(lang, input.locale)));
}

/** Planned once: a conflict sends the same attribute again, under the id it was given. */
export const createAttribute = (input: AttributeCreateInput, lang: Lang | undefined): Write<Row> =>
  planOnce(async (stamp) => {
    const [id, position] = await Promise.all([attributes.allocateId(), input.position ?? nextPosition()]);
    return createAttributePlan(input, lang, { id, position, stamp });
  });

/** An update's plan: the attribute replaced at the version expected (else read), its texts merged per locale. */
export function updateAttributePlan(input: AttributeUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined, reads: { current: Attribute; stamp: WriteStamp }): WritePlan<Row> {
  const { current } = reads;
  const texts = sentTexts(input);
  const next: Attribute = {
    ...current,
    position: input.position ?? current.position,
    i18n: textsAfterUpdate(current.i18n, input.locale, texts),
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  if (attributes.unchanged(current, next, expectedVersion)) return plan([], attributeRow(current, localeOf(lang, input.locale)));
  return plan([...attributes.replace(reads.stamp, current, next, expectedVersion), ...positionSteps(current, next)], attributeRow(next, localeOf(lang, input.locale)));
}

export const updateAttribute = (input: AttributeUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Write<Row> =>
  new Write(async (stamp) => updateAttributePlan(input, lang, expectedVersion, { current: await readAttribute(input.id), stamp }));

/**
 * A delete's plan: refused (409) while the attribute has values; else the attribute and its count as
 * read (a value created since fails a shard's condition: read again).
 */
export function deleteAttributePlan(attribute: Attribute, references: ShardValues | undefined, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const count = sumOf(references);
  if (count > 0) throw new Conflict(`attribute ${attribute.id} has ${count} value(s): delete them first`);
  return plan([...attributes.remove(stamp, attribute, expectedVersion), ...attributeReferences.removeSteps(attribute.id, references, raced)], undefined);
}

export const deleteAttribute = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [attribute, references] = await Promise.all([readAttribute(id), attributeReferences.read(id)]);
    return deleteAttributePlan(attribute, references, expectedVersion, stamp);
  });
