/**
 * Category operations (docs/api.md). A category's parent must exist when it is written: the
 * transaction counts the category into the parent's references on condition that the parent's shard
 * exists. A move checks that the category does not become its own ancestor, in the same
 * transaction as the move, against every ancestor it read. A category that anything refers to
 * cannot be deleted (409), without a scan: its references are counted beside it.
 *
 * Each write is an operation's reads, then a plan made from them alone (`…Plan`: no table, unit-tested
 * by its steps); whoever runs it commits it (lib/db/write-plan.ts).
 */
import { sentTexts, textsAfterUpdate } from '../catalog-texts.js';
import { Conflict, NotFound } from '../db/errors.js';
import { readShards, removeAsReadSteps, sumOf, type ShardValues } from '../db/sharded-count.js';
import { check, holds, raced, type WriteStep } from '../db/transactions.js';
import { plan, planOnce, recordedPlan, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField } from '../errors.js';
import { localeOf } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { categories, type Category } from './entity.js';
import { countReferenceStep, referencesCreateSteps, referencesTo } from './references.js';
import { categoryRow } from './row.js';
import type { CategoryCreateInput, CategoryUpdateInput } from './schema.js';
import { claimPosition } from '../db/positions.js';

/** How far up a move walks to prove the category is not its own ancestor (a transaction holds 100 items). */
export const MAX_DEPTH = 50;

const missing = () => new NotFound('category');
const unknownParent = () => invalidField('parent', 'is not an existing category');

async function readCategory(id: number): Promise<Category> {
  const category = await categories.read(id);
  if (!category) throw missing();
  return category;
}

/** After the last of the parent's children, as Thelia places a new category (one Query), and distinct from every other create's. */
async function nextPosition(parent: number): Promise<number> {
  const last = await categories.list('byParent', { order: 'manual', reverse: true, where: { parent } }, { limit: 1, offset: 0 });
  // Under no category, the write fails before it claims anything (its transaction checks the parent too,
  // for a race). A parent with children exists (it cannot be deleted under them): only a childless one is read.
  if (parent !== 0 && !last.items.length && !(await categories.read(parent))) throw unknownParent();
  return claimPosition(`category:${parent}`, last.items[0]?.position ?? 0);
}

/**
 * `parent`'s ancestors, read walking up from it: until the root, the category itself (it would
 * become its own ancestor), or MAX_DEPTH of them.
 */
async function readAncestry(categoryId: number, parent: number): Promise<Category[]> {
  const chain: Category[] = [];
  for (let at = parent; at !== 0 && at !== categoryId && chain.length < MAX_DEPTH; ) {
    const ancestor = await categories.read(at);
    if (!ancestor) throw unknownParent();
    chain.push(ancestor);
    at = ancestor.parent;
  }
  return chain;
}

/**
 * The checks that keep `parent`'s ancestry as read (`chain`, from readAncestry): a 400 when the walk
 * met the category itself or went deeper than MAX_DEPTH. Each ancestor's check fails a concurrent
 * move of it, which then reads again.
 */
function ancestryChecks(categoryId: number, parent: number, chain: readonly Category[]): WriteStep[] {
  const stoppedAt = chain.at(-1)?.parent ?? parent;
  if (stoppedAt === categoryId) throw invalidField('parent', 'would make the category its own ancestor');
  if (stoppedAt !== 0) throw invalidField('parent', `is more than ${MAX_DEPTH} levels deep`);
  return chain.map((ancestor) => check(categories.key(ancestor.id), holds('parent', ancestor.parent), raced));
}

export async function getCategory(id: number, lang: Lang | undefined): Promise<Row> {
  return categoryRow(await readCategory(id), localeOf(lang));
}

/** A new category record, at version 1 (the API's, or a store's import). */
export const newCategory = (fields: Omit<Category, 'version'>): Category => ({ ...fields, version: 1 });

/** A create's plan, given its id and place: the category, its count of references, and its count in its parent's (which must exist). */
export function createCategoryPlan(input: CategoryCreateInput, lang: Lang | undefined, made: { id: number; position: number; stamp: WriteStamp }): WritePlan<Row> {
  const { id, position, stamp } = made;
  const category = newCategory({ id, parent: input.parent, visible: input.visible, position, i18n: { [input.locale]: sentTexts(input) }, createdAt: stamp.now, updatedAt: stamp.now });
  const steps = [...categories.create(stamp, category), ...referencesCreateSteps(id), ...(input.parent ? [countReferenceStep(input.parent, id, 1, unknownParent)] : [])];
  return recordedPlan(steps, categoryRow(category, localeOf(lang, input.locale)));
}

/** Planned once: a conflict sends the same category again, under the id it was given. */
export const createCategory = (input: CategoryCreateInput, lang: Lang | undefined): Write<Row> =>
  planOnce(async (stamp) => {
    const [id, position] = await Promise.all([categories.allocateId(), nextPosition(input.parent)]);
    return createCategoryPlan(input, lang, { id, position, stamp });
  });

/** What an update reads: the category, and for a move the new parent's ancestry and (without a position sent) the place after its children. */
export interface CategoryUpdateReads {
  current: Category;
  ancestry: readonly Category[];
  nextPosition: number | undefined;
  stamp: WriteStamp;
}

/** An update's plan: the category replaced at the version expected (else read), moved with its counts and ancestry checks when its parent changes. */
export function updateCategoryPlan(input: CategoryUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined, reads: CategoryUpdateReads): WritePlan<Row> {
  const { current } = reads;
  const moves = input.parent !== undefined && input.parent !== current.parent;
  const parent = input.parent ?? current.parent;
  const moveSteps: WriteStep[] = moves
    ? [
        ...(parent !== 0 ? [...ancestryChecks(current.id, parent, reads.ancestry), countReferenceStep(parent, current.id, 1, unknownParent)] : []),
        ...(current.parent !== 0 ? [countReferenceStep(current.parent, current.id, -1, raced)] : []),
      ]
    : [];
  const texts = sentTexts(input);
  const next: Category = {
    ...current,
    parent,
    visible: input.visible ?? current.visible,
    // A category moved without a position goes after its new siblings.
    position: input.position ?? (moves ? (reads.nextPosition ?? current.position) : current.position),
    i18n: textsAfterUpdate(current.i18n, input.locale, texts),
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  if (categories.unchanged(current, next, expectedVersion)) return plan([], categoryRow(current, localeOf(lang, input.locale)));
  return plan([...categories.replace(reads.stamp, current, next, expectedVersion), ...moveSteps], categoryRow(next, localeOf(lang, input.locale)));
}

export const updateCategory = (input: CategoryUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Write<Row> =>
  new Write(async (stamp) => {
    const current = await readCategory(input.id);
    const movedTo = input.parent !== current.parent ? input.parent : undefined;
    const reads = { current, ancestry: movedTo === undefined ? [] : await readAncestry(current.id, movedTo), nextPosition: undefined, stamp };
    // Planned once to refuse a move that cannot be (under itself) before a position is claimed for it.
    const checked = updateCategoryPlan(input, lang, expectedVersion, reads);
    if (movedTo === undefined || input.position !== undefined) return checked;
    return updateCategoryPlan(input, lang, expectedVersion, { ...reads, nextPosition: await nextPosition(movedTo) });
  });

/**
 * A delete's plan: refused (409) while anything refers to the category; else the category, its
 * counts as read (a reference counted in since fails a shard's condition: read again), and its
 * count in its parent's.
 */
export function deleteCategoryPlan(category: Category, references: ShardValues | undefined, expectedVersion: number | undefined, stamp: WriteStamp): WritePlan<void> {
  const count = sumOf(references);
  if (count > 0) throw new Conflict(`category ${category.id} has ${count} child categories or products that refer to it: move or delete them first`);
  return plan(
    [
      ...categories.remove(stamp, category, expectedVersion),
      ...removeAsReadSteps(referencesTo(category.id), references, raced),
      ...(category.parent !== 0 ? [countReferenceStep(category.parent, category.id, -1, raced)] : []),
    ],
    undefined,
  );
}

export const deleteCategory = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => {
    const [category, references] = await Promise.all([readCategory(id), readShards(referencesTo(id))]);
    return deleteCategoryPlan(category, references, expectedVersion, stamp);
  });
