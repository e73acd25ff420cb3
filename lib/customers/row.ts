/** A customer's loop row (docs/conventions.md): never a password or its hash. */
import type { Row } from '../row.js';
import type { Customer } from './entity.js';

/** A customer's reference: Thelia's when the import kept one, else `CUS` and its id on 12 digits. */
export const customerRef = (c: Pick<Customer, 'id' | 'ref'>): string => c.ref ?? idRef(c.id);
/** The reference a customer's id makes. */
export const idRef = (id: number): string => `CUS${String(id).padStart(12, '0')}`;

export function customerRow(c: Customer): Row {
  return {
    ID: c.id,
    REF: customerRef(c),
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
