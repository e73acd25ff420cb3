/**
 * What refers to a category (its children, the products whose default category it is): a count of
 * 16 shards beside it (`CATEGORY_USE#<id>`), made and deleted with it, as tax rules' product counts
 * are. A reference adds to its own shard on condition that the shard exists, which proves the
 * category exists without any two references' writes sharing an item. A module of its own: a
 * product's write needs only this of categories.
 */
import { addStep, createSteps, shardedCount } from '../db/sharded-count.js';
import type { OnConditionFailed, WriteStep } from '../db/transactions.js';

export const referencesTo = (categoryId: number) => shardedCount(`CATEGORY_USE#${categoryId}`, 16);

/**
 * The step that counts a reference to a category in (or out): a child category or a product, on the
 * shard of the referrer's id (it must be counted out on the same one), failing as `onMissing` when
 * the category does not exist.
 */
export const countReferenceStep = (categoryId: number, referrerId: number, delta: number, onMissing: OnConditionFailed): WriteStep =>
  addStep(referencesTo(categoryId), referrerId, delta, { whileExists: onMissing });

/** The steps that make a new category's count of references (with the category, in its transaction). */
export const referencesCreateSteps = (categoryId: number): WriteStep[] => createSteps(referencesTo(categoryId));
