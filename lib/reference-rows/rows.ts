/** The reference routes' rows (docs/api.md): a kind's records, as `npm run reference` projects them for its routes. */
import { translate, type I18n } from '../i18n.js';
import { bit, type Row } from '../row.js';

/**
 * One kind of reference data, as its routes bundle it (lib/reference/data/rows/<kind>.json): each
 * record's id, its texts per locale under their row keys, and its other row keys in order.
 */
export interface ReferenceRows {
  /** The row keys of its texts, after ID, LOCALE and IS_TRANSLATED; empty when the kind is not localized. */
  texts: string[];
  records: readonly {
    id: number;
    /** Texts per locale: as JSON's types have them, a locale another record has is undefined here. */
    i18n: Readonly<Record<string, Readonly<Record<string, string | undefined>> | undefined>>;
    fields: Readonly<Record<string, string | number | Readonly<Record<string, string>> | null | undefined>>;
  }[];
}

/** A record's row in `locale`: its texts there, else the default language's (`IS_TRANSLATED` 0), as every localized row. */
export function referenceRow(kind: ReferenceRows, record: ReferenceRows['records'][number], locale: string): Row {
  const fields = record.fields as Row;
  if (!kind.texts.length) return { ID: record.id, ...fields };
  const { translated, texts } = translate(record.i18n as I18n<string>, locale, kind.texts);
  return { ID: record.id, LOCALE: locale, IS_TRANSLATED: bit(translated), ...texts, ...fields };
}
