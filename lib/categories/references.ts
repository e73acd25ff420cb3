/**
 * What refers to a category (its children, the products whose default category it is): a count of
 * 16 shards beside it (`CATEGORY_USE#<id>`, lib/db/reference-count.ts), made and deleted with it. A
 * module of its own: a product's write needs only this of categories.
 */
import { referenceCount } from '../db/reference-count.js';
import type { OnConditionFailed, WriteStep } from '../db/transactions.js';

export const categoryReferences = referenceCount('CATEGORY_USE');

export const referencesTo = categoryReferences.of;

/**
 * The step that counts a reference to a category in (or out): a child category or a product, on the
 * shard of the referrer's id (it must be counted out on the same one), failing as `onMissing` when
 * the category does not exist.
 */
export const countReferenceStep = (categoryId: number, referrerId: number, delta: number, onMissing: OnConditionFailed): WriteStep =>
  categoryReferences.countStep(categoryId, referrerId, delta, onMissing);

/** The steps that make a new category's count of references (with the category, in its transaction). */
export const referencesCreateSteps = categoryReferences.createSteps;
