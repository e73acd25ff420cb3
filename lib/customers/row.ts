/** A customer's loop row (CONTRACT §4): never a password or its hash. */
import type { Row } from '../row.js';
import type { Customer } from './entity.js';

export const customerRef = (id: number): string => `CUS${String(id).padStart(12, '0')}`;

export function customerRow(c: Customer): Row {
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
