/** A category's loop row (docs/conventions.md, docs/api.md: Thelia's category loop). */
import { catalogTextsRow } from '../catalog-texts.js';
import { bit, type Row } from '../row.js';
import type { Category } from './entity.js';

export function categoryRow(c: Category, locale: string): Row {
  return {
    ID: c.id,
    ...catalogTextsRow(c.i18n, locale),
    PARENT: c.parent,
    VISIBLE: bit(c.visible),
    POSITION: c.position,
    VERSION: c.version,
    CREATE_DATE: c.createdAt,
    UPDATE_DATE: c.updatedAt,
  };
}
