/** What the search index keeps of the brands (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { brands } from './entity.js';
import { brandList } from './list.js';

export const projection = projectionOf(brandList, brands);
