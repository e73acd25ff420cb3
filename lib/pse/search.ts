/** What the search index keeps of the sale elements (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { saleElements } from '../products/sale-elements.js';
import { pseList } from './list.js';

export const projection = projectionOf(pseList, saleElements);
