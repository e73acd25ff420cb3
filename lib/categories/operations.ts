/**
 * Category operations (CONTRACT §6). A category's parent must exist when it is written: the
 * transaction counts the category into the parent's references on condition that the parent's shard
 * exists. A move checks that the category does not become its own ancestor, in the same
 * transaction as the move, against every ancestor it read. A category that anything refers to
 * cannot be deleted (409), without a scan: its references are counted beside it.
 */
import { sentTexts } from '../catalog-texts.js';
import { Conflict, NotFound } from '../db/errors.js';
import { readShards, removeAsReadSteps, sumOf } from '../db/sharded-count.js';
import { check, holds, raced, retryOnConflict, writeAtomically, type WriteStep } from '../db/transactions.js';
import { invalidField } from '../errors.js';
import { localeOf, mergeTexts } from '../i18n.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { categories, type Category } from './entity.js';
import { countReferenceStep, referencesCreateSteps, referencesTo } from './references.js';
import { categoryRow } from './row.js';
import type { CategoryCreateInput, CategoryUpdateInput } from './schema.js';

/** How far up a move walks to prove the category is not its own ancestor (a transaction holds 100 items). */
export const MAX_DEPTH = 50;

const missing = () => new NotFound('category');
const unknownParent = () => invalidField('parent', 'is not an existing category');

async function readCategory(id: number): Promise<Category> {
  const category = await categories.read(id);
  if (!category) throw missing();
  return category;
}

/** After the last of the parent's children, as Thelia places a new category (one Query). */
async function nextPosition(parent: number): Promise<number> {
  const last = await categories.list('byParent', { order: 'manual', reverse: true, where: { parent } }, { limit: 1, offset: 0 });
  return (last.items[0]?.position ?? 0) + 1;
}

/**
 * The checks that keep `parent`'s ancestry as read, walking up from it: a 400 when the walk meets
 * the category itself (it would become its own ancestor) or goes deeper than MAX_DEPTH. Each
 * ancestor's check fails a concurrent move of it, which then reads again.
 */
async function ancestryChecks(categoryId: number, parent: number): Promise<WriteStep[]> {
  const steps: WriteStep[] = [];
  for (let at = parent; at !== 0; ) {
    if (at === categoryId) throw invalidField('parent', 'would make the category its own ancestor');
    if (steps.length === MAX_DEPTH) throw invalidField('parent', `is more than ${MAX_DEPTH} levels deep`);
    const ancestor = await categories.read(at);
    if (!ancestor) throw unknownParent();
    steps.push(check(categories.key(at), holds('parent', ancestor.parent), raced));
    at = ancestor.parent;
  }
  return steps;
}

export async function getCategory(id: number, lang: Lang | undefined): Promise<Row> {
  return categoryRow(await readCategory(id), localeOf(lang));
}

/** A new category record, at version 1 (the API's, or a store's import). */
export const newCategory = (fields: Omit<Category, 'version'>): Category => ({ ...fields, version: 1 });

export async function createCategory(input: CategoryCreateInput, lang: Lang | undefined): Promise<Row> {
  const [id, position] = await Promise.all([categories.allocateId(), nextPosition(input.parent)]);
  const now = new Date().toISOString();
  const category = newCategory({ id, parent: input.parent, visible: input.visible, position, i18n: { [input.locale]: sentTexts(input) }, createdAt: now, updatedAt: now });
  const row = categoryRow(category, localeOf(lang, input.locale));
  await retryOnConflict(() =>
    writeAtomically([...categories.create(category), ...referencesCreateSteps(id), ...(input.parent ? [countReferenceStep(input.parent, id, 1, unknownParent)] : [])], { outcome: row }),
  );
  return row;
}

export async function updateCategory(input: CategoryUpdateInput, lang: Lang | undefined, expectedVersion: number | undefined): Promise<Row> {
  const updated = await retryOnConflict(async () => {
    const current = await readCategory(input.id);
    const moves = input.parent !== undefined && input.parent !== current.parent;
    const parent = moves ? input.parent! : current.parent;
    const moveSteps: WriteStep[] = moves
      ? [
          ...(parent !== 0 ? [...(await ancestryChecks(current.id, parent)), countReferenceStep(parent, current.id, 1, unknownParent)] : []),
          ...(current.parent !== 0 ? [countReferenceStep(current.parent, current.id, -1, raced)] : []),
        ]
      : [];
    const texts = sentTexts(input);
    const next: Category = {
      ...current,
      parent,
      visible: input.visible ?? current.visible,
      // A category moved without a position goes after its new siblings.
      position: input.position ?? (moves ? await nextPosition(parent) : current.position),
      i18n: input.locale && Object.keys(texts).length ? mergeTexts(current.i18n, input.locale, texts) : current.i18n,
      version: current.version + 1,
      updatedAt: new Date().toISOString(),
    };
    if (input.locale && !next.i18n[input.locale]?.title) throw invalidField('title', 'is required for a new locale');
    await writeAtomically([...categories.replace(current, next, expectedVersion), ...moveSteps]);
    return next;
  });
  return categoryRow(updated, localeOf(lang, input.locale));
}

export async function deleteCategory(id: number, expectedVersion: number | undefined): Promise<void> {
  await retryOnConflict(async () => {
    const [category, references] = await Promise.all([readCategory(id), readShards(referencesTo(id))]);
    const count = sumOf(references);
    if (count > 0) throw new Conflict(`category ${id} has ${count} child categories or products that refer to it: move or delete them first`);
    // A reference counted in since the read fails a shard's condition: read again.
    await writeAtomically([
      ...categories.remove(category, expectedVersion),
      ...removeAsReadSteps(referencesTo(id), references, raced),
      ...(category.parent !== 0 ? [countReferenceStep(category.parent, id, -1, raced)] : []),
    ]);
  });
}
