/**
 * Attribute values in their attributes' order, as the attributes are placed now: how a sale element
 * shows what it is made of (`ATTRIBUTE_AVS`, docs/api.md), whatever moved since it was written. What
 * it needs is cached by this container: a value's attribute, which never changes (given at the
 * value's create for good, and ids are never reused), and the attributes' positions, labelled with
 * their version read in the request beside its other items (bumped by every move: lib/attributes/entity.ts).
 */
import { attributes } from '../attributes/entity.js';
import { versionedCache } from '../db/version-item.js';
import { attributeAvs, type AttributeAv } from './entity.js';

/** Each value's attribute, as read once. */
const attributeOfValue = new Map<number, number>();

const positionsAt = versionedCache(async (ids) => new Map((await attributes.readMany(ids)).map((attribute) => [attribute.id, attribute.position] as const)));

/**
 * The order of `valueIds`' values at positions version `version`: a sort of any of them by their
 * attribute's position, the attribute's id breaking ties (as the values were placed when written).
 * `known`: values the caller has read already, whose attributes need no read.
 */
export async function valueOrder(version: number, valueIds: readonly number[], known: readonly Pick<AttributeAv, 'id' | 'attributeId'>[] = []): Promise<(values: readonly number[]) => number[]> {
  for (const value of known) attributeOfValue.set(value.id, value.attributeId);
  const unknown = [...new Set(valueIds)].filter((id) => !attributeOfValue.has(id));
  if (unknown.length) for (const value of await attributeAvs.readMany(unknown)) attributeOfValue.set(value.id, value.attributeId);
  const positions = await positionsAt(version, [...new Set(valueIds.flatMap((id) => attributeOfValue.get(id) ?? []))]);
  const rank = (value: number): [number, number] => {
    const attribute = attributeOfValue.get(value) ?? 0;
    return [positions.get(attribute) ?? 0, attribute];
  };
  return (values) =>
    [...values].sort((a, b) => {
      const [positionA, attributeA] = rank(a);
      const [positionB, attributeB] = rank(b);
      return positionA - positionB || attributeA - attributeB;
    });
}
