/**
 * The reference routes' reads: the rows come from the projection the route's function bundles, so
 * a page reads nothing from DynamoDB, and its cursor is the last row's id, as every list's.
 */
import { NotFound } from '../db/errors.js';
import { mapPage, pageSorted, type Page, type PageRequest, type Position } from '../db/page.js';
import { localeOf } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { referenceRow, type ReferenceRows } from './rows.js';
import type { ReferenceListInput } from './schema.js';

type ReferenceRecord = ReferenceRows['records'][number];

const byId = (record: ReferenceRecord): Position => [record.id];

export async function listReference(kind: ReferenceRows, query: ReferenceListInput, page: PageRequest): Promise<Page<Row>> {
  const ascending = (a: Position, b: Position) => Number(a[0]) - Number(b[0]);
  const compare = query.order.reverse ? (a: Position, b: Position) => ascending(b, a) : ascending;
  const sorted = [...kind.records].sort((a, b) => compare(byId(a), byId(b)));
  const locale = localeOf(query.lang);
  return mapPage(pageSorted(sorted, page, byId, compare), (record) => referenceRow(kind, record, locale));
}

/** One record's row; `what` names it in a 404 (`country`). */
export async function getReference(kind: ReferenceRows, what: string, id: number, lang: Lang | undefined): Promise<Row> {
  const record = kind.records.find((candidate) => candidate.id === id);
  if (!record) throw new NotFound(what);
  return referenceRow(kind, record, localeOf(lang));
}
