/** Records made through the public API, for tests that need some to exist. */
import { expect } from 'vitest';
import { post } from './api.js';

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

export async function createCustomer(overrides: Record<string, unknown> = {}) {
  const input = customerInput(overrides);
  const response = await post('/api/customers', input);
  expect(response.status).toBe(201);
  return { row: response.body[0], input };
}
