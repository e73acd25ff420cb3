/**
 * lib/brands/, lib/attributes/ and lib/attribute-avs/ operations: their writes, by the plans made from
 * what they read (no table), and what a product's write counts into its brand.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createAttributeAvPlan, deleteAttributeAvPlan, newAttributeAv } from '../../../lib/attribute-avs/operations.js';
import { AttributeAvCreate } from '../../../lib/attribute-avs/schema.js';
import { deleteAttributePlan, newAttribute } from '../../../lib/attributes/operations.js';
import { createBrandPlan, deleteBrandPlan, newBrand, updateBrandPlan } from '../../../lib/brands/operations.js';
import { BrandCreate, BrandUpdate } from '../../../lib/brands/schema.js';
import { newProduct, updateProductPlan } from '../../../lib/products/operations.js';
import { ProductUpdate } from '../../../lib/products/schema.js';
import { conditionOn, expectedVersionOf, stepsOf, stepsOn } from '../../support/plan-steps.js';
import { fixedStamp } from '../../support/stamp.js';

const NOW = '2026-11-29T12:00:00.000Z';
const STAMP = fixedStamp(NOW);
const brand = newBrand({ id: 4, visible: true, position: 2, i18n: { en_US: { title: 'Acme', meta_title: 'Acme furniture' } }, createdAt: NOW, updatedAt: NOW });
const shards = (values: number[]) => new Map(values.map((value, shard) => [`S#${String(shard).padStart(2, '0')}`, value]));

describe('a brand', () => {
  it('is created with its 16 shards of products, and records its row with its meta texts', () => {
    const plan = createBrandPlan(v.parse(BrandCreate, { title: 'Acme', locale: 'en_US', meta_keywords: 'chairs' }), undefined, { id: 4, position: 3, stamp: STAMP });
    expect(stepsOf(plan)).toContain('Put BRAND#4 BRAND');
    expect(stepsOn(plan, 'BRAND_USE#4')).toHaveLength(16);
    expect(plan.answer).toMatchObject({ ID: 4, TITLE: 'Acme', META_KEYWORDS: 'chairs', META_TITLE: '', POSITION: 3, VISIBLE: 0, LOGO_IMAGE_ID: 0 });
    expect(plan.answerRecorded).toBe(true);
  });

  it('is updated per locale at the version expected, and needs a title in a new locale', () => {
    const plan = updateBrandPlan(v.parse(BrandUpdate, { id: 4, locale: 'en_US', meta_title: 'Acme' }), undefined, 1, { current: brand, stamp: STAMP });
    expect(expectedVersionOf(plan, 'BRAND#4', 'BRAND')).toBe(1);
    expect(plan.answer).toMatchObject({ TITLE: 'Acme', META_TITLE: 'Acme', VERSION: 2 });
    expect(() => updateBrandPlan(v.parse(BrandUpdate, { id: 4, locale: 'fr_FR', chapo: 'Sans titre' }), undefined, undefined, { current: brand, stamp: STAMP })).toThrow(
      'is required for a new locale',
    );
  });

  it('is deleted with its shards as read, each on condition that it still holds what was read; refused while products use it', () => {
    const plan = deleteBrandPlan(brand, shards(Array(16).fill(0)), undefined, STAMP);
    expect(stepsOn(plan, 'BRAND_USE#4')).toHaveLength(16);
    expect(conditionOn(plan, 'BRAND_USE#4', 'S#03')?.values).toEqual({ ':read': 0 });
    expect(() => deleteBrandPlan(brand, shards([1, -1, 2]), undefined, STAMP)).toThrow('brand 4 has 2 product(s)');
  });
});

describe("a product's brand", () => {
  const product = { ...newProduct({ ref: 'R', price: 1_000_000n, currency: 1, tax_rule: 1, default_category: 0, brand_id: 4 }, { id: 9, taxRuleId: 1, i18n: {}, createdAt: NOW, updatedAt: NOW }) };
  const update = (body: object) => updateProductPlan(v.parse(ProductUpdate, body), undefined, { current: product, taxRuleId: 1, stamp: STAMP });

  it('is counted in on condition that the brand exists, and out of the brand it leaves, on the product’s own shard', () => {
    expect(product.brandCounted).toBe(true);
    const plan = update({ brand_id: 5 });
    expect(stepsOn(plan, 'BRAND_USE#')).toEqual(['Update BRAND_USE#5 S#09', 'Update BRAND_USE#4 S#09']);
    expect(conditionOn(plan, 'BRAND_USE#5', 'S#09')?.expression).toContain('attribute_exists');
  });

  it('moves nothing when it is sent unchanged, or not sent; a product stored before brands were checked is counted in only when one is sent', () => {
    expect(stepsOn(update({ brand_id: 4 }), 'BRAND_USE#')).toEqual([]);
    expect(stepsOn(update({ weight: 1 }), 'BRAND_USE#')).toEqual([]);
    const stored = { ...product, brandCounted: undefined };
    const plan = updateProductPlan(v.parse(ProductUpdate, { brand_id: 4 }), undefined, { current: stored, taxRuleId: 1, stamp: STAMP });
    expect(stepsOn(plan, 'BRAND_USE#')).toEqual(['Update BRAND_USE#4 S#09']);
  });
});

describe('an attribute and its values', () => {
  const attribute = newAttribute({ id: 2, position: 1, i18n: { en_US: { title: 'Size' } }, createdAt: NOW, updatedAt: NOW });
  const value = newAttributeAv({ id: 17, attributeId: 2, position: 1, i18n: { en_US: { title: 'L' } }, createdAt: NOW, updatedAt: NOW });

  it('a value is counted into its attribute on condition that the attribute exists, with its own shards for the sale elements made of it', () => {
    const plan = createAttributeAvPlan(v.parse(AttributeAvCreate, { attribute_id: 2, title: 'L', locale: 'en_US' }), undefined, { id: 17, position: 1, stamp: STAMP });
    expect(stepsOn(plan, 'ATTRIBUTE_AV_USE#17')).toHaveLength(16);
    expect(stepsOn(plan, 'ATTRIBUTE_USE#')).toEqual(['Update ATTRIBUTE_USE#2 S#01']);
    expect(plan.answer).toMatchObject({ ID: 17, ATTRIBUTE_ID: 2, TITLE: 'L' });
  });

  it('a value is deleted with its shards as read and counted out of its attribute; refused while sale elements use it', () => {
    expect(stepsOn(deleteAttributeAvPlan(value, undefined, undefined, STAMP), 'ATTRIBUTE_USE#')).toEqual(['Update ATTRIBUTE_USE#2 S#01']);
    expect(() => deleteAttributeAvPlan(value, shards([1]), undefined, STAMP)).toThrow('used by 1 product sale element(s)');
  });

  it('an attribute that has values is refused (409)', () => {
    expect(() => deleteAttributePlan(attribute, shards([0, 2]), undefined, STAMP)).toThrow('attribute 2 has 2 value(s)');
    expect(stepsOn(deleteAttributePlan(attribute, shards([0]), 3, STAMP), 'ATTRIBUTE_USE#2')).toHaveLength(16);
  });
});
