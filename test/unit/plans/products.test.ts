/** lib/products/operations.ts: a product's writes, by the plans made from what they read (no table). */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { VersionMismatch } from '../../../lib/db/errors.js';
import type { Product } from '../../../lib/products/entity.js';
import { createProductPlan, deleteProductPlan, newProduct, updateProductPlan } from '../../../lib/products/operations.js';
import { ProductCreate, ProductUpdate } from '../../../lib/products/schema.js';
import { newTaxRule } from '../../../lib/tax-rules/operations.js';
import { TaxRuleCreate } from '../../../lib/tax-rules/schema.js';
import { attributesSetOn, conditionOn, expectedVersionOf, stepsOf, stepsOn } from '../../support/plan-steps.js';
import { fixedStamp } from '../../support/stamp.js';

const NOW = '2026-11-27T12:00:00.000Z';
const STAMP = fixedStamp(NOW);
const rule = newTaxRule(v.parse(TaxRuleCreate, { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'France' }] }), { id: 2, createdAt: NOW, updatedAt: NOW });
const created = (body: object) => v.parse(ProductCreate, { ref: 'CHAIR-1', price: '19.99', currency: 1, tax_rule: 2, default_category: 0, locale: 'en_US', title: 'A chair', ...body });
const stored = (fields: Partial<Product> = {}): Product => ({
  ...newProduct(created({}), { id: 7, taxRuleId: 2, i18n: { en_US: { title: 'A chair' } }, createdAt: NOW, updatedAt: NOW }),
  ...fields,
});
const update = (body: object) => v.parse(ProductUpdate, body);

describe('a product create', () => {
  it('writes the product and its ref lock, counts it into its rule and its default category on condition that each exists, and records its row with the rule’s price', () => {
    const plan = createProductPlan(created({ default_category: 3 }), undefined, { id: 7, pseId: 30, rule, stamp: STAMP });
    expect(stepsOf(plan)).toEqual(expect.arrayContaining(['Put PRODUCT#7 PRODUCT', 'Update TAXRULE_USE#2 S#07', 'Update CATEGORY_USE#3 S#07']));
    // Its default sale element (docs/api.md), its ref's lock, and the count of the product's sale elements at one.
    expect(stepsOf(plan)).toEqual(expect.arrayContaining(['Put PSE#30 PSE', 'Put PSE_OF#7 S#00']));
    expect(stepsOn(plan, 'PSE_REF#')).toHaveLength(1);
    expect(stepsOn(plan, 'PRODUCT_REF#')).toHaveLength(1);
    expect(conditionOn(plan, 'TAXRULE_USE#2', 'S#07')?.expression).toBe('attribute_exists(pk)');
    expect(plan.answer).toMatchObject({ ID: 7, REF: 'CHAIR-1', TAX_RULE_ID: 2, VERSION: 1 });
    expect(plan.answerRecorded).toBe(true);
  });
});

describe('a product update', () => {
  it('sets what it changes (its price, version and date) and its index keys, not the fields it keeps', () => {
    const set = attributesSetOn(
      updateProductPlan(update({ price: '21' }), undefined, { current: stored({ updatedAt: '2026-11-26T12:00:00.000Z' }), taxRuleId: 2, stamp: STAMP }),
      'PRODUCT#7',
      'PRODUCT',
    );
    expect(set.filter((attribute) => !/^gsi\d+(pk|sk)$/.test(attribute)).sort()).toEqual(['price', 'updatedAt', 'version']);
    expect(set.length).toBeGreaterThan(3);
  });

  it('is refused (412) when the product read is not at the version expected, before anything is written', () => {
    expect(() => updateProductPlan(update({ ref: 'CHAIR-2' }), 2, { current: stored({ version: 3 }), taxRuleId: 2, stamp: STAMP })).toThrow(VersionMismatch);
  });

  it('moves its count from the rule it leaves to the one it takes, and counts nothing when its rule stays', () => {
    const moved = updateProductPlan(update({ price: '21' }), undefined, { current: stored(), taxRuleId: 5, stamp: STAMP });
    expect(stepsOn(moved, 'TAXRULE_USE#')).toEqual(['Update TAXRULE_USE#5 S#07', 'Update TAXRULE_USE#2 S#07']);
    expect(stepsOn(updateProductPlan(update({ price: '21' }), undefined, { current: stored(), taxRuleId: 2, stamp: STAMP }), 'TAXRULE_USE#')).toEqual([]);
  });

  it('moves its ref lock with a new ref, on condition that the new one is free and the old one still its own', () => {
    const plan = updateProductPlan(update({ ref: 'CHAIR-2' }), 3, { current: stored({ version: 3 }), taxRuleId: 2, stamp: STAMP });
    // A ref's lock holds it as compared: folded (lib/identity.ts).
    expect(stepsOn(plan, 'PRODUCT_REF#')).toEqual(['Delete PRODUCT_REF#chair-1 LOCK', 'Put PRODUCT_REF#chair-2 LOCK']);
    expect(conditionOn(plan, 'PRODUCT_REF#chair-2', 'LOCK')?.expression).toBe('attribute_not_exists(pk)');
    expect(expectedVersionOf(plan, 'PRODUCT#7', 'PRODUCT')).toBe(3);
    expect(plan.answer).toBeUndefined();
  });

  it('checks a default category sent, unless the product is counted in it already', () => {
    expect(stepsOn(updateProductPlan(update({ default_category: 4 }), undefined, { current: stored(), taxRuleId: 2, stamp: STAMP }), 'CATEGORY_USE#')).toEqual(['Update CATEGORY_USE#4 S#07']);
    const counted = stored({ defaultCategory: 4, categoryCounted: true });
    expect(stepsOn(updateProductPlan(update({ default_category: 4 }), undefined, { current: counted, taxRuleId: 2, stamp: STAMP }), 'CATEGORY_USE#')).toEqual([]);
  });

  it('refuses a new locale without its title', () => {
    expect(() => updateProductPlan(update({ locale: 'fr_FR', chapo: 'Sans titre' }), undefined, { current: stored(), taxRuleId: 2, stamp: STAMP })).toThrow('is required for a new locale');
  });
});

describe('a product delete', () => {
  it('deletes the product at the version expected, frees its ref and counts it out of its rule and category', () => {
    const plan = deleteProductPlan(STAMP, stored({ defaultCategory: 4, categoryCounted: true }), 1);
    expect(conditionOn(plan, 'PRODUCT#7', 'PRODUCT')?.values).toEqual({ ':expectedVersion': 1 });
    expect(stepsOf(plan)).toEqual(expect.arrayContaining(['Delete PRODUCT_REF#chair-1 LOCK', 'Update TAXRULE_USE#2 S#07', 'Update CATEGORY_USE#4 S#07']));
  });
});
