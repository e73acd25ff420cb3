/** A brand's loop row (docs/api.md: Thelia's brand loop). */
import { localizedRow } from '../catalog-texts.js';
import { bit, type Row } from '../row.js';
import { BRAND_TEXTS, type Brand } from './entity.js';

export function brandRow(b: Brand, locale: string): Row {
  return {
    ID: b.id,
    ...localizedRow(b.i18n, locale, BRAND_TEXTS),
    POSITION: b.position,
    VISIBLE: bit(b.visible),
    // Brand images are not kept yet: Thelia's 0, no image.
    LOGO_IMAGE_ID: 0,
    VERSION: b.version,
    CREATE_DATE: b.createdAt,
    UPDATE_DATE: b.updatedAt,
  };
}
