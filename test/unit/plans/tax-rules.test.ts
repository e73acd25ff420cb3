/** lib/tax-rules/operations.ts: a tax rule's writes, by the plans made from what they read (no table). */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { deleteTaxRulePlan, newTaxRule, updateTaxRulePlan } from '../../../lib/tax-rules/operations.js';
import { TaxRuleCreate, TaxRuleUpdate } from '../../../lib/tax-rules/schema.js';
import { conditionOn, stepsOf } from '../../support/plan-steps.js';
import { fixedStamp } from '../../support/stamp.js';

const NOW = '2026-11-27T12:00:00.000Z';
const STAMP = fixedStamp(NOW);
const rule = (id: number, isDefault = false) => ({
  ...newTaxRule(v.parse(TaxRuleCreate, { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: `Rule ${id}` }] }), { id, createdAt: NOW, updatedAt: NOW }),
  isDefault,
});

describe('a tax rule update', () => {
  it('that makes it the default moves the pointer from where it was read and takes the flag off the former default, recording its change', () => {
    const plan = updateTaxRulePlan(v.parse(TaxRuleUpdate, { id: 3, default: true }), undefined, undefined, { rule: rule(3), defaultId: 1, formerDefault: rule(1, true), stamp: STAMP });
    expect(stepsOf(plan)).toEqual(expect.arrayContaining(['Update TAXRULE RULE#0000000000000003', 'Update TAXRULE RULE#0000000000000001', 'Update TAXRULE VERSION']));
    expect(stepsOf(plan).filter((step) => step.includes('DEFAULT'))).toHaveLength(1);
    expect(stepsOf(plan).filter((step) => step.startsWith('Put CHANGE#tax-rule#'))).toHaveLength(2);
    expect(plan.answer).toMatchObject({ ID: 3, IS_DEFAULT: 1 });
  });

  it('refuses a new locale without its title, naming the entry', () => {
    const input = v.parse(TaxRuleUpdate, { id: 3, i18n: [{ locale: 'fr_FR', description: 'Sans titre' }] });
    expect(() => updateTaxRulePlan(input, undefined, undefined, { rule: rule(3), defaultId: undefined, formerDefault: undefined, stamp: STAMP })).toThrow('is required for a new locale');
  });
});

describe('a tax rule delete', () => {
  it('is a 409 while a product uses the rule', () => {
    expect(() => deleteTaxRulePlan(rule(3), new Map([['S#00', 1]]), undefined, STAMP)).toThrow('is used by 1 product(s)');
  });

  it('deletes the rule and its count as read, and clears the default pointer when it was the default', () => {
    const plan = deleteTaxRulePlan(rule(3, true), new Map([['S#00', 0]]), undefined, STAMP);
    expect(conditionOn(plan, 'TAXRULE_USE#3', 'S#00')?.values).toEqual({ ':read': 0 });
    expect(stepsOf(plan).filter((step) => step.includes('DEFAULT'))).toHaveLength(1);
    expect(stepsOf(deleteTaxRulePlan(rule(3), undefined, undefined, STAMP)).filter((step) => step.includes('DEFAULT'))).toEqual([]);
  });
});
