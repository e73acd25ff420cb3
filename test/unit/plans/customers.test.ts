/** lib/customers/operations.ts: a customer's writes, by the plans made from what they read (no table, no hashing). */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { Customer } from '../../../lib/customers/entity.js';
import { createCustomerPlan, newCustomer, updateCustomerPlan } from '../../../lib/customers/operations.js';
import { CustomerCreate, CustomerUpdate } from '../../../lib/customers/schema.js';
import { customerInput } from '../../support/fixtures.js';
import { conditionOn, stepsOn } from '../../support/plan-steps.js';
import { fixedStamp } from '../../support/stamp.js';

const NOW = '2026-11-27T12:00:00.000Z';
const STAMP = fixedStamp(NOW);
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA';
const input = v.parse(CustomerCreate, customerInput({ email: 'jeanne@example.com' }));
const stored = (): Customer => newCustomer(input, { id: 7, passwordHash: HASH, createdAt: NOW, updatedAt: NOW });
const update = (body: object) => v.parse(CustomerUpdate, { id: 7, ...body });

describe('a customer create', () => {
  it('writes the customer and its email lock, which carries the hash, and records a row that holds neither password nor hash', () => {
    const plan = createCustomerPlan(input, { id: 7, passwordHash: HASH, stamp: STAMP });
    expect(stepsOn(plan, 'CUSTOMER')).toEqual(expect.arrayContaining(['Put CUSTOMER#7 CUSTOMER', 'Put CUSTOMER_EMAIL#jeanne@example.com LOCK']));
    expect(plan.answer).toMatchObject({ ID: 7, EMAIL: 'jeanne@example.com' });
    expect(JSON.stringify(plan.answer)).not.toMatch(/argon2|correct horse/);
    expect(plan.answerRecorded).toBe(true);
  });
});

describe('a customer update', () => {
  it('moves the email lock to a new email, carrying a new hash', () => {
    const plan = updateCustomerPlan(update({ email: 'j.martin@example.com' }), undefined, { current: stored(), newHash: `${HASH}2`, stamp: STAMP });
    expect(stepsOn(plan, 'CUSTOMER_EMAIL#')).toEqual(['Delete CUSTOMER_EMAIL#jeanne@example.com LOCK', 'Put CUSTOMER_EMAIL#j.martin@example.com LOCK']);
    expect(conditionOn(plan, 'CUSTOMER_EMAIL#j.martin@example.com', 'LOCK')?.expression).toBe('attribute_not_exists(pk)');
  });

  it('checks a zip code sent alone against the stored country (400 zipcode), and one sent with its country not here (the schema did)', () => {
    expect(() => updateCustomerPlan(update({ zipcode: 'ABC' }), undefined, { current: stored(), newHash: undefined, stamp: STAMP })).toThrow('does not match the zip code format');
    expect(updateCustomerPlan(update({ city: 'Lyon' }), undefined, { current: stored(), newHash: undefined, stamp: STAMP }).answer).toMatchObject({ CITY: 'Lyon', VERSION: 2 });
  });
});
