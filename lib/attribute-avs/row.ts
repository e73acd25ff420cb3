/** An attribute value's loop row (docs/api.md: Thelia's attribute_availability loop). */
import { catalogTextsRow } from '../catalog-texts.js';
import type { Row } from '../row.js';
import type { AttributeAv } from './entity.js';

export function attributeAvRow(av: AttributeAv, locale: string): Row {
  return { ID: av.id, ATTRIBUTE_ID: av.attributeId, ...catalogTextsRow(av.i18n, locale), POSITION: av.position, VERSION: av.version, CREATE_DATE: av.createdAt, UPDATE_DATE: av.updatedAt };
}
