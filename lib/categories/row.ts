/** A category's loop row (CONTRACT §4 and §6: Thelia's category loop). */
import { translate } from '../i18n.js';
import { bit, type Row } from '../row.js';
import { TEXT_FIELDS, type Category } from './entity.js';

export function categoryRow(c: Category, locale: string): Row {
  const { translated, texts } = translate(c.i18n, locale, TEXT_FIELDS);
  return {
    ID: c.id,
    LOCALE: locale,
    IS_TRANSLATED: bit(translated),
    TITLE: texts.title,
    CHAPO: texts.chapo,
    DESCRIPTION: texts.description,
    POSTSCRIPTUM: texts.postscriptum,
    PARENT: c.parent,
    VISIBLE: bit(c.visible),
    POSITION: c.position,
    VERSION: c.version,
    CREATE_DATE: c.createdAt,
    UPDATE_DATE: c.updatedAt,
  };
}
