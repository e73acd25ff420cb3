/** What the search index keeps of the categories (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { categories } from './entity.js';
import { categoryList } from './list.js';

export const projection = projectionOf(categoryList, categories);
