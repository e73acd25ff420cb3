/** The query of `GET /api/changes` (docs/changes-events-webhooks.md). */
import * as v from 'valibot';
import { CHANGE_RESOURCES } from '../resources.js';
import { integer } from '../validation.js';

export { CHANGE_RESOURCES };
/** A resource as changes name it (resources.ts). */
export type ChangeResource = string;

export const MAX_CHANGES_LIMIT = 500;

export const ChangeListQuery = v.object({
  resource: v.optional(v.picklist(CHANGE_RESOURCES, `must be one of ${CHANGE_RESOURCES.join(', ')}`)),
  /** A record's id (an API key's 25 characters); only with `resource`. */
  entity_id: v.optional(v.pipe(v.string(), v.regex(/^(?:[1-9]\d{0,15}|[0-9A-F]{25})$/, 'must be a record id (an integer, or an API key)'))),
  // The feed's own paging: up to 500 changes a page, followed by cursor only (`now`: from here on).
  limit: v.optional(v.pipe(integer(1), v.maxValue(MAX_CHANGES_LIMIT, `must be at most ${MAX_CHANGES_LIMIT}`)), 100),
  offset: v.optional(v.pipe(integer(0), v.maxValue(0, 'is not taken by the change feed: follow its cursor')), 0),
});

export type ChangeListInput = v.InferOutput<typeof ChangeListQuery>;
