/**
 * Customer items and their loop rows. The password hash lives on the customer item and, copied in
 * the same transactions, on its login item (CUSTOMER_EMAIL#<email>), which also makes the email
 * unique: checkLogin then reads one item by email. Rows never carry the hash.
 */
import type { LoopRow } from '../db/loop.js';
import { keys, padId } from '../db/keys.js';

export interface Customer {
  id: number;
  title: number;
  firstname: string;
  lastname: string;
  email: string;
  langId: number;
  country: number;
  zipcode: string;
  city: string;
  address1: string;
  address2: string;
  address3: string;
  passwordHash: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface LoginItem {
  customerId: number;
  passwordHash: string;
}

export const LIST_PARTITION = 'CUSTOMERS';

export const customerRef = (id: number): string => `CUS${String(id).padStart(12, '0')}`;

export const toItem = (c: Customer) => ({
  ...keys.customer(c.id),
  gsi1pk: LIST_PARTITION,
  gsi1sk: padId(c.id),
  gsi2pk: LIST_PARTITION,
  gsi2sk: `${c.lastname.toLowerCase()}#${padId(c.id)}`,
  ...c,
});

export const loginItem = (c: Pick<Customer, 'id' | 'email' | 'passwordHash'>) => ({
  ...keys.customerEmail(c.email),
  customerId: c.id,
  passwordHash: c.passwordHash,
});

export function fromItem(item: Record<string, unknown>): Customer {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, gsi2pk: _c, gsi2sk: _d, ...customer } = item;
  return customer as unknown as Customer;
}

export function toRow(c: Customer): LoopRow {
  return {
    ID: c.id,
    REF: customerRef(c.id),
    TITLE: c.title,
    FIRSTNAME: c.firstname,
    LASTNAME: c.lastname,
    EMAIL: c.email,
    LANG_ID: c.langId,
    ADDRESS1: c.address1,
    ADDRESS2: c.address2,
    ADDRESS3: c.address3,
    ZIPCODE: c.zipcode,
    CITY: c.city,
    COUNTRY: c.country,
    VERSION: c.version,
    CREATE_DATE: c.createdAt,
    UPDATE_DATE: c.updatedAt,
  };
}
