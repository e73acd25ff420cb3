/** An attribute's loop row (docs/api.md: its value's row without ATTRIBUTE_ID). */
import { catalogTextsRow } from '../catalog-texts.js';
import type { Row } from '../row.js';
import type { Attribute } from './entity.js';

export function attributeRow(a: Attribute, locale: string): Row {
  return { ID: a.id, ...catalogTextsRow(a.i18n, locale), POSITION: a.position, VERSION: a.version, CREATE_DATE: a.createdAt, UPDATE_DATE: a.updatedAt };
}
