/** What the search index keeps of the attribute values (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { attributeAvs } from './entity.js';
import { attributeAvList } from './list.js';

export const projection = projectionOf(attributeAvList, attributeAvs);
