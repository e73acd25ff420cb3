/**
 * The shapes of row values (docs/conventions.md), as schemas: what the OpenAPI document says each loop row
 * key holds. Tooling only (the document's generator); a Lambda never loads these.
 */
import * as v from 'valibot';

export const rowId = () => v.pipe(v.number(), v.integer(), v.minValue(1));
export const rowCount = () => v.pipe(v.number(), v.integer(), v.minValue(0));
export const rowBit = () => v.picklist([0, 1]);
/** Money and weights: exact decimals with six fraction digits. */
export const rowDecimal = () => v.pipe(v.string(), v.regex(/^\d+\.\d{6}$/));
export const rowDate = () => v.pipe(v.string(), v.isoTimestamp());
export const rowIds = () => v.array(rowId());
export const rowText = () => v.string();
export const rowVersion = () => v.pipe(v.number(), v.integer(), v.minValue(1));
export const rowLocale = () => v.pipe(v.string(), v.regex(/^[a-z]{2}_[A-Z]{2}$/));

/** A catalog record's localized part (lib/catalog-texts.ts `catalogTextsRow`): its locale, whether it is translated there, its texts. */
export const catalogTextsRowEntries = () => ({ LOCALE: rowLocale(), IS_TRANSLATED: rowBit(), TITLE: rowText(), CHAPO: rowText(), DESCRIPTION: rowText(), POSTSCRIPTUM: rowText() });

/** LOOP_COUNT (1-based position in the answer) and LOOP_TOTAL (rows in the answer) end every row. */
export const loopEntries = () => ({ LOOP_COUNT: v.pipe(v.number(), v.integer(), v.minValue(1)), LOOP_TOTAL: v.pipe(v.number(), v.integer(), v.minValue(1)) });
