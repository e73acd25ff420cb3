/**
 * Attribute value operations (docs/api.md). A value's attribute must exist when it is created: the
 * transaction counts the value into the attribute's references on condition that their count exists.
 * A value that sale elements use cannot be deleted (409): they are counted beside it (references.ts).
 *
 * Each write is an operation's reads, then a plan made from them alone (`…Plan`: no table, unit-tested
 * by its steps); whoever runs it commits it (lib/db/write-plan.ts).
 */
import { attributeReferences } from '../attributes/references.js';
import { sentTexts, textsAfterUpdate } from '../catalog-texts.js';
import { Conflict, NotFound } from '../db/errors.js';
import { sumOf } from '../db/reference-count.js';
import type { ShardValues } from '../db/sharded-count.js';
import { raced } from '../db/transactions.js';
import { plan, planOnce, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField } from '../errors.js';
import { localeOf } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { attributeAvs, type AttributeAv } from './entity.js';
import { attributeAvReferences } from './references.js';
import { attributeAvRow } from './row.js';
import type { AttributeAvCreateInput, AttributeAvUpdateInput } from './schema.js';
import { claimPosition } from '../db/positions.js';
import { attributes } from '../attributes/entity.js';

const unknownAttribute = () => invalidField('attribute_id', 'is not an existing attribute');

async function readAttributeAv(id: number): Promise<AttributeAv> {
  const av = await attributeAvs.read(id);
  if (!av) throw new NotFound('attribute value');
  return av;
}

/** After the last of the attribute's values, as Thelia places a new one (one Query), and distinct from every other create's. */
async function nextPosition(attributeId: number): Promise<number> {
  const last = await attributeAvs.list('byAttribute', { order: 'manual', reverse: true, where: { attributeId } }, { limit: 1, offset: 0 });
  // Of no attribute, the create fails before it claims anything (its transaction checks the attribute too,
  // for a race). An attribute with values exists (it cannot be deleted under them): only one without is read.
  if (!last.items.length && !(await attributes.read(attributeId))) throw unknownAttribute();
  return claimPosition(`attribute-av:${attributeId}`, last.items[0]?.position ?? 0);
}

export async function getAttributeAv(id: number, lang: Lang | undefined): Promise<Row> {
  return attributeAvRow(await readAttributeAv(id), localeOf(lang));
}

/** A new value record, at version 1 (the API's, or a store's import). */
export const newAttributeAv = (fields: Omit<AttributeAv, 'version'>): AttributeAv => ({ ...fields, version: 1 });

/** A create's plan, given its id and place: the value, its count of sale elements, and its count in its attribute's (which must exist). */
export function createAttributeAvPlan(input: AttributeAvCreateInput, lang: Lang | undefined, made: { id: number; position: number; stamp: WriteStamp }): WritePlan<Row> {
  const { id, position, stamp } = made;
  const av = newAttributeAv({ id, attributeId: input.attribute_id, position, i18n: { [input.locale]: sentTexts(input) }, createdAt: stamp.now, updatedAt: stamp.now });
  const steps = [...attributeAvs.create(stamp, av), ...attributeAvReferences.createSteps(id), attributeReferences.countStep(av.attributeId, id, 1, unknownAttribute)];
  return recordedPlan(steps, attributeAvRow(av, localeOf(lang, input.locale)));
}

/** Planned once: a conflict sends the same value again, under the id it was given. */
export const createAttributeAv = (input: AttributeAvCreateInput, lang: Lang | undefined): Write<Row> =>
  planOnce(async (stamp) => {
    const [id, position] = await Promise.all([attributeAvs.allocateId(), input.position ?? nextPosition(input.attribute_id)]);
    return createAttributeAvPlan(input, lang, { id, position, stamp });
  });

/** An update's plan: the value replaced at the version expected (else read), its texts merged per locale. */
export function updateAttributeAvPlan(input: AttributeAvUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined, reads: { current: AttributeAv; stamp: WriteStamp }): WritePlan<Row> {
  const { current } = reads;
  const texts = sentTexts(input);
  const next: AttributeAv = {
    ...current,
    position: input.position ?? current.position,
    i18n: textsAfterUpdate(current.i18n, input.locale, texts),
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  if (attributeAvs.unchanged(current, next, expectedVersion)) return plan([], attributeAvRow(current, localeOf(lang, input.locale)));
  return plan(attributeAvs.replace(reads.stamp, current, next, expectedVersion), attributeAvRow(next, localeOf(lang, input.locale)));
}

export const updateAttributeAv = (input: AttributeAvUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Write<Row> =>
  new Write(async (stamp) => updateAttributeAvPlan(input, lang, expectedVersion, { current: await readAttributeAv(input.id), stamp }));

/**
 * A delete's plan: refused (409) while sale elements use the value; else the value, its count as read
 * (one counted in since fails a shard's condition: read again), and its count in its attribute's.
 */
export function deleteAttributeAvPlan(av: AttributeAv, references: ShardValues | undefined, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const count = sumOf(references);
  if (count > 0) throw new Conflict(`attribute value ${av.id} is used by ${count} product sale element(s): change or delete them first`);
  return plan(
    [...attributeAvs.remove(stamp, av, expectedVersion), ...attributeAvReferences.removeSteps(av.id, references, raced), attributeReferences.countStep(av.attributeId, av.id, -1, raced)],
    undefined,
  );
}

export const deleteAttributeAv = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [av, references] = await Promise.all([readAttributeAv(id), attributeAvReferences.read(id)]);
    return deleteAttributeAvPlan(av, references, expectedVersion, stamp);
  });
