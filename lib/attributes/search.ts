/** What the search index keeps of the attributes (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { attributes } from './entity.js';
import { attributeList } from './list.js';

export const projection = projectionOf(attributeList, attributes);
