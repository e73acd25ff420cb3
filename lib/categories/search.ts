/** What the search index keeps of the categories (CONTRACT §5.2): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { categories } from './entity.js';
import { categoryList } from './list.js';

export const projection = projectionOf(categoryList, categories);
