import { ChangeListQuery, listChanges } from '../../lib/changes/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('changes/list', { query: ChangeListQuery }, ({ query, page, caller }) => listChanges(query, page, caller));
