/** What the search index keeps of the products (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { products } from './entity.js';
import { productList } from './list.js';

export const projection = projectionOf(productList, products);
