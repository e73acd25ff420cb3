/** What the search index keeps of the customers (docs/lists.md): each as its list declares its document (lib/search/index.ts finds it here). */
import { projectionOf } from '../db/lists/projector.js';
import { customers } from './entity.js';
import { customerList } from './list.js';

export const projection = projectionOf(customerList, customers);
