/** Inputs of the attribute value routes (docs/api.md: Thelia 2.1–2.4's attribute value forms). */
import * as v from 'valibot';
import { AttributeUpdate, positionedCreate } from '../attributes/schema.js';
import { langQuery } from '../i18n.js';
import { integer } from '../validation.js';

/** Its attribute is given at its create, for good: a sale element holds one value per attribute. */
export const AttributeAvCreate = v.strictObject({ attribute_id: integer(1), ...positionedCreate });
/** An attribute's update: texts per locale and a place. */
export const AttributeAvUpdate = AttributeUpdate;

export const AttributeAvQuery = langQuery();

export type AttributeAvCreateInput = v.InferOutput<typeof AttributeAvCreate>;
export type AttributeAvUpdateInput = v.InferOutput<typeof AttributeAvUpdate>;
