/**
 * What refers to an attribute (its values): a count of 16 shards beside it (`ATTRIBUTE_USE#<id>`,
 * lib/db/reference-count.ts), made and deleted with it. A module of its own: a value's write needs
 * only this of attributes.
 */
import { referenceCount } from '../db/reference-count.js';

export const attributeReferences = referenceCount('ATTRIBUTE_USE');
