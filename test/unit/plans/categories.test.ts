/** lib/categories/operations.ts: a category's writes, by the plans made from what they read (no table). */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CategoryCreate, CategoryUpdate } from '../../../lib/categories/schema.js';
import { createCategoryPlan, deleteCategoryPlan, MAX_DEPTH, newCategory, updateCategoryPlan } from '../../../lib/categories/operations.js';
import type { Category } from '../../../lib/categories/entity.js';
import { conditionOn, expectedVersionOf, stepsOf, stepsOn } from '../../support/plan-steps.js';
import { fixedStamp } from '../../support/stamp.js';

const NOW = '2026-11-27T12:00:00.000Z';
const STAMP = fixedStamp(NOW);
const category = (id: number, parent: number, fields: Partial<Category> = {}): Category => ({
  ...newCategory({ id, parent, visible: true, position: 1, i18n: { en_US: { title: `Category ${id}` } }, createdAt: NOW, updatedAt: NOW }),
  ...fields,
});
const update = (body: object) => v.parse(CategoryUpdate, { id: 7, ...body });
const reads = (current: Category, ancestry: Category[] = [], nextPosition?: number) => ({ current, ancestry, nextPosition, stamp: STAMP });

describe('a category create', () => {
  it('writes the category, its 16 reference shards and its count, counts it into its parent on condition that the parent exists, and records its row', () => {
    const plan = createCategoryPlan(v.parse(CategoryCreate, { parent: 3, title: 'Chairs', locale: 'en_US' }), undefined, { id: 7, position: 2, stamp: STAMP });
    expect(stepsOf(plan)).toContain('Put CATEGORY#7 CATEGORY');
    expect(stepsOn(plan, 'CATEGORY_USE#7')).toHaveLength(16);
    expect(stepsOn(plan, 'CATEGORY_USE#3')).toHaveLength(1);
    expect(conditionOn(plan, 'CATEGORY#7', 'CATEGORY')?.expression).toBe('attribute_not_exists(pk)');
    expect(plan.answer).toMatchObject({ ID: 7, PARENT: 3, POSITION: 2, TITLE: 'Chairs', VERSION: 1 });
    expect(plan.answerRecorded).toBe(true);
  });

  it('at the root counts into no parent', () => {
    const plan = createCategoryPlan(v.parse(CategoryCreate, { title: 'Root', locale: 'en_US' }), undefined, { id: 8, position: 1, stamp: STAMP });
    expect(stepsOf(plan).filter((step) => step.startsWith('Update CATEGORY_USE#'))).toEqual([]);
  });
});

describe('a category update', () => {
  it('replaces the category at the version expected, records nothing of its answer, and moves nothing when its parent stays', () => {
    const plan = updateCategoryPlan(update({ title: 'Armchairs', locale: 'en_US' }), undefined, 4, reads(category(7, 3, { version: 4 })));
    expect(expectedVersionOf(plan, 'CATEGORY#7', 'CATEGORY')).toBe(4);
    expect(stepsOf(plan).filter((step) => !step.includes('CHANGE'))).toEqual(['Update CATEGORY#7 CATEGORY']);
    expect(plan.answer).toMatchObject({ TITLE: 'Armchairs', VERSION: 5 });
    expect(plan.answerRecorded).toBe(false);
  });

  it('moves: counted out of the old parent, into the new one, after its children, with each ancestor checked to stay where it was read', () => {
    const plan = updateCategoryPlan(update({ parent: 5 }), undefined, undefined, reads(category(7, 3), [category(5, 1), category(1, 0)], 4));
    expect(stepsOf(plan)).toEqual(expect.arrayContaining(['ConditionCheck CATEGORY#5 CATEGORY', 'ConditionCheck CATEGORY#1 CATEGORY']));
    expect(stepsOn(plan, 'CATEGORY_USE#')).toEqual(['Update CATEGORY_USE#5 S#07', 'Update CATEGORY_USE#3 S#07']);
    expect(conditionOn(plan, 'CATEGORY#5', 'CATEGORY')?.values).toEqual({ ':held': 1 });
    expect(plan.answer).toMatchObject({ PARENT: 5, POSITION: 4 });
  });

  it('refuses a move under itself or one of its descendants, or deeper than MAX_DEPTH, as a 400 on parent', () => {
    expect(() => updateCategoryPlan(update({ parent: 7 }), undefined, undefined, reads(category(7, 0)))).toThrow('would make the category its own ancestor');
    expect(() => updateCategoryPlan(update({ parent: 9 }), undefined, undefined, reads(category(7, 0), [category(9, 8), category(8, 7)]))).toThrow('its own ancestor');
    const deep = Array.from({ length: MAX_DEPTH }, (_, k) => category(100 + k, 101 + k));
    expect(() => updateCategoryPlan(update({ parent: 100 }), undefined, undefined, reads(category(7, 0), deep))).toThrow(`more than ${MAX_DEPTH} levels deep`);
  });

  it('refuses a new locale without its title', () => {
    expect(() => updateCategoryPlan(update({ locale: 'fr_FR', chapo: 'Sans titre' }), undefined, undefined, reads(category(7, 0)))).toThrow('is required for a new locale');
  });
});

describe('a category delete', () => {
  it('is a 409 while anything refers to it', () => {
    expect(() => deleteCategoryPlan(category(7, 3), new Map([['S#04', 2]]), undefined, STAMP)).toThrow('has 2 child categories or products');
  });

  it('deletes the category at the version read, its shards as read, and counts it out of its parent', () => {
    const plan = deleteCategoryPlan(category(7, 3, { version: 2 }), new Map([['S#04', 0]]), undefined, STAMP);
    expect(conditionOn(plan, 'CATEGORY#7', 'CATEGORY')).toEqual({ expression: 'version = :expectedVersion', values: { ':expectedVersion': 2 } });
    expect(conditionOn(plan, 'CATEGORY_USE#7', 'S#04')?.values).toEqual({ ':read': 0 });
    expect(stepsOn(plan, 'CATEGORY_USE#3')).toEqual(['Update CATEGORY_USE#3 S#07']);
  });
});
