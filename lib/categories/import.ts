/**
 * What categories are to a store's import (docs/moving-from-thelia.md, lib/import/kind.ts): Thelia's `category`
 * rows with their texts, parents before their children (a walk of the tree from its root), each
 * mapped through the API's own schemas, its parent one the import keeps; written one to a
 * transaction, each counted into its parent's references as the API's create counts it. A copy of a
 * store without categories brings none. Tooling: only `npm run import` loads it.
 */
import * as v from 'valibot';
import { Conflict } from '../db/errors.js';
import { contentOf, countedInto } from '../import/destination.js';
import { defineImportKind } from '../import/kind.js';
import { datesOf, localizedTexts, problemsOf, type Mapped, type Normalization, type Problem } from '../import/mapping.js';
import { catalogueTexts, dateOf, groupBy, type TheliaCatalogTexts, type TheliaSource } from '../import/source.js';
import { present } from '../present.js';
import { flag, integer } from '../validation.js';
import { categories, type Category } from './entity.js';
import { deleteCategory, newCategory } from './operations.js';
import { countReferenceStep, referencesCreateSteps, referencesTo } from './references.js';
import { readShards, sumOf } from '../db/sharded-count.js';
import { CategoryTexts } from './schema.js';

export interface TheliaCategory {
  id: number;
  /** 0 for the root. */
  parent: number;
  visible: number;
  position: number;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: TheliaCatalogTexts[];
}

/**
 * Categories with their texts, every parent before its children (the order a tree is walked from
 * its root, by position), and last, by id, those no walk from the root reaches (a parent that is
 * not there, a loop), which the mapping refuses. Only the ids and parents are read whole.
 */
async function* categoryRows(source: TheliaSource, size: number): AsyncGenerator<TheliaCategory[]> {
  if (!(await source.has('category'))) return;
  const tree = await source.select('SELECT id, parent FROM category ORDER BY position, id');
  const children = groupBy(tree, 'parent', (row) => Number(row.id));
  const ordered: number[] = [];
  for (let queue = [0], parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    const walked = (children.get(parent) ?? []).filter((child) => child !== 0);
    ordered.push(...walked);
    queue.push(...walked);
  }
  const reached = new Set(ordered);
  ordered.push(
    ...tree
      .map((row) => Number(row.id))
      .filter((id) => !reached.has(id))
      .sort((a, b) => a - b),
  );
  const hasTexts = await source.has('category_i18n');
  for (let i = 0; i < ordered.length; i += size) {
    const ids = ordered.slice(i, i + size);
    const [rows, i18n] = await Promise.all([
      source.select('SELECT id, parent, visible, position, created_at, updated_at FROM category WHERE id IN (?)', [ids]),
      hasTexts ? source.select('SELECT id, locale, title, chapo, description, postscriptum FROM category_i18n WHERE id IN (?) ORDER BY id, locale', [ids]) : [],
    ]);
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    const textsOf = groupBy(i18n, 'id', catalogueTexts);
    yield ids.map((id) => {
      const row = present(byId.get(id), `category ${id}, read by its id`);
      return {
        id,
        parent: Number(row.parent),
        visible: Number(row.visible),
        position: Number(row.position),
        createdAt: dateOf(row.created_at),
        updatedAt: dateOf(row.updated_at),
        i18n: textsOf.get(id) ?? [],
      };
    });
  }
}

export interface CategoryContext {
  /** Why a parent cannot be used (skipped, or not in the source, or not reached from its root); undefined when it can. */
  parentProblem: (id: number) => string | undefined;
}

/** A category's flags as the API's update checks them. */
const CategoryImport = v.object({ visible: flag(), position: integer(0) });

export function mapCategory(category: TheliaCategory, context: CategoryContext): Mapped<Category> {
  const problems: Problem[] = [];
  const dates = datesOf('category', category, problems);
  const parentProblem = category.parent === 0 ? undefined : context.parentProblem(category.parent);
  if (parentProblem) problems.push({ field: 'category.parent', message: `category ${category.parent} ${parentProblem}` });
  const normalized: Normalization[] = [];
  const i18n = localizedTexts(category.i18n, { table: 'category_i18n', row: category.id }, CategoryTexts, problems, normalized);
  const parsed = v.safeParse(CategoryImport, { visible: category.visible, position: category.position });
  if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `category.${String(field)}`));
  if (!parsed.success || problems.length || !dates) return { problems };
  return { record: newCategory({ id: category.id, parent: category.parent, ...parsed.output, i18n, ...dates }), normalized };
}

/** A category a write counts into, found gone: the Conflict its step raises, under the field that names what referred to it. */
export const categoryGone = (id: number, field: 'parent' | 'category') => () => new Conflict(`category ${id} is no longer in the table`, field);
const parentGone = (id: number) => categoryGone(id, 'parent');

export const importKind = defineImportKind<TheliaCategory, Category>({
  kind: 'category',
  plural: 'categories',
  table: 'category',
  absent: 'is not a category of the source that its root reaches',
  counter: categories.counter,
  // Parents come first: a category's parent was mapped (and, when kept, written) before it.
  begin: (source, size, context) => Promise.resolve({ batches: categoryRows(source, size), map: (category) => mapCategory(category, { parentProblem: (id) => context.problemOf('category', id) }) }),
  writer: {
    readMany: (ids) => categories.readMany(ids),
    steps: (stamp, records) => [
      ...categories.create(stamp, ...records),
      ...records.flatMap((category) => referencesCreateSteps(category.id)),
      ...countedInto(
        records,
        (category) => category.parent || undefined,
        (parent, firstId, count) => countReferenceStep(parent, firstId, count, parentGone(parent)),
      ),
    ],
    updateSteps(stamp, stored, next) {
      const moves =
        stored.parent === next.parent
          ? []
          : [
              ...(stored.parent ? [countReferenceStep(stored.parent, stored.id, -1, parentGone(stored.parent))] : []),
              ...(next.parent ? [countReferenceStep(next.parent, next.id, 1, parentGone(next.parent))] : []),
            ];
      return [...categories.replace(stamp, stored, next, stored.version), ...moves];
    },
    same: (stored, imported) => contentOf(stored) === contentOf(imported),
    references: { parent: 'category.parent' },
    // A category's record, its change and the change's marker, its references' 16 shards, its parent's
    // count and the record count: one a transaction, since a child's count and its parent's shards may
    // not be two operations on one item of one transaction.
    perTransaction: 1,
  },
  pages: () => categories.pages(),
  remove: deleteCategory,
  async inUse(category) {
    const references = sumOf(await readShards(referencesTo(category.id)));
    return references > 0 ? `${references} child categories or products refer to it` : undefined;
  },
});
