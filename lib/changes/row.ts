/** A change's loop row (docs/changes-events-webhooks.md), keys in the contract's order. */
import type { Change } from '../db/changes.js';
import type { Row } from '../row.js';

export const changeRow = (change: Change): Row => ({
  ID: change.id,
  RESOURCE: change.resource,
  ENTITY_ID: change.entityId,
  TYPE: change.type,
  VERSION: change.version,
  CHANGES: change.changes,
  API_KEY: change.apiKey,
  REQUEST_ID: change.requestId,
  DATE: change.date,
});
