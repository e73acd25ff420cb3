/**
 * What refers to a brand (the products of it): a count of 16 shards beside it (`BRAND_USE#<id>`,
 * lib/db/reference-count.ts), made and deleted with it. A module of its own: a product's write needs
 * only this of brands.
 */
import { referenceCount } from '../db/reference-count.js';

export const brandReferences = referenceCount('BRAND_USE');
