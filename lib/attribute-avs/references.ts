/**
 * What refers to an attribute value (the sale elements made of it, docs/api.md): a count of 16
 * shards beside it (`ATTRIBUTE_AV_USE#<id>`, lib/db/reference-count.ts), made and deleted with it, so
 * that a value in use cannot be deleted. A module of its own: a sale element's write needs only this.
 */
import { referenceCount } from '../db/reference-count.js';

export const attributeAvReferences = referenceCount('ATTRIBUTE_AV_USE');
