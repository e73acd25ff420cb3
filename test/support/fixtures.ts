/** Records made through the public API, for tests that need some to exist. */
import { expect } from 'vitest';
import { post } from './api.js';
export { keyWith } from './api.js';

let sequence = 0;
export const uniqueEmail = (prefix = 'customer') => `${prefix}.${process.pid}.${Date.now()}.${++sequence}@example.com`;

export const customerInput = (overrides: Record<string, unknown> = {}) => ({
  title: 1,
  firstname: 'Jeanne',
  lastname: 'Martin',
  email: uniqueEmail(),
  password: 'correct horse battery',
  lang_id: 1,
  country: 64,
  zipcode: '75001',
  city: 'Paris',
  address1: '1 rue de Rivoli',
  ...overrides,
});

/** Creates a record through the API; its row and what was sent. */
async function create<Input>(path: string, input: Input) {
  const response = await post(path, input);
  expect(response.status, response.text).toBe(201);
  return { row: response.body[0], input };
}

export const createCustomer = (overrides: Record<string, unknown> = {}) => create('/api/customers', customerInput(overrides));

export const uniqueRef = (prefix = 'REF') => `${prefix}-${process.pid}-${Date.now()}-${++sequence}`;

export const productInput = (overrides: Record<string, unknown> = {}) => ({
  ref: uniqueRef(),
  default_category: 0,
  price: '19.99',
  currency: 1,
  tax_rule: 1,
  locale: 'en_US',
  title: 'A product',
  ...overrides,
});

export const createProduct = (overrides: Record<string, unknown> = {}) => create('/api/products', productInput(overrides));

export async function createTaxRule(overrides: Record<string, unknown> = {}) {
  return (await create('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'A rule' }], ...overrides })).row;
}

export async function createCategory(overrides: Record<string, unknown> = {}) {
  return (await create('/api/categories', { title: 'A category', locale: 'en_US', ...overrides })).row;
}

export async function createBrand(overrides: Record<string, unknown> = {}) {
  return (await create('/api/brands', { title: 'A brand', locale: 'en_US', ...overrides })).row;
}

export async function createAttribute(overrides: Record<string, unknown> = {}) {
  return (await create('/api/attributes', { title: 'An attribute', locale: 'en_US', ...overrides })).row;
}

export async function createAttributeAv(attributeId: number, overrides: Record<string, unknown> = {}) {
  return (await create('/api/attribute-avs', { attribute_id: attributeId, title: 'A value', locale: 'en_US', ...overrides })).row;
}
