/**
 * How customers live in the table, declared once. The password hash is on the customer record and,
 * carried by its email lock (which also makes the email unique), on the lock item: checkLogin then
 * reads one item by email.
 */
import * as v from 'valibot';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { defineStored } from '../db/stored.js';
import { padId, SORT_TEXT_BYTES, sortablePrefix } from '../db/keys.js';
import { identityOf } from '../identity.js';
import { fold } from '../db/lists/query.js';
import { defineWindowCounter } from '../db/window-counter.js';

export const CustomerRecord = v.object({
  id: v.number(),
  title: v.number(),
  firstname: v.string(),
  lastname: v.string(),
  email: v.string(),
  langId: v.number(),
  country: v.number(),
  zipcode: v.string(),
  city: v.string(),
  address1: v.string(),
  address2: v.string(),
  address3: v.string(),
  passwordHash: v.string(),
  /** The reference Thelia gave it, kept by the import when it is not the one its id makes (row.ts `customerRef`). */
  ref: v.optional(v.string()),
  ...versionedEntries,
});

export type Customer = v.InferOutput<typeof CustomerRecord>;

const byId = (c: Customer) => padId(c.id);

/** The lists of every customer are spread over this many index partitions each (by id), as products' are (lib/products/entity.ts): fewer, customers being written at a lower rate than products (a registration, not a price sync), each page querying them all. */
const LIST_SHARDS = 4;

export const customers = defineEntity({
  name: 'customer',
  schema: CustomerRecord,
  id: (c) => c.id,
  key: (id: number) => ({ pk: `CUSTOMER#${id}`, sk: 'CUSTOMER' }),
  lists: {
    all: {
      partition: () => 'CUSTOMERS',
      shards: LIST_SHARDS,
      counted: true,
      orders: {
        id: { index: 'GSI1', sortKey: byId },
        // Folded, as texts sort (docs/lists.md); the id after a separator below any printable character keeps equal names apart.
        lastname: { index: 'GSI2', sortKey: (c) => `${sortablePrefix(fold(c.lastname), SORT_TEXT_BYTES)}\u0001${byId(c)}` },
      },
    },
    // Every customer by registration date (`registration_date`), the id keeping equal instants apart.
    byRegistration: { partition: () => 'CUSTOMERS', shards: LIST_SHARDS, counted: true, orders: { created: { index: 'GSI6', sortKey: (c) => `${c.createdAt}\u0001${byId(c)}` } } },
  },
  locks: {
    // Emails that read the same are the same email (lib/identity.ts); before, only their case was folded.
    email: { prefix: 'CUSTOMER_EMAIL', valueOf: (c) => c.email, normalize: identityOf, formerly: (email) => email.toLowerCase(), carry: (c) => ({ passwordHash: c.passwordHash }) },
  },
  counter: { name: 'CUSTOMER' },
  // The fields of the customer's row (row.ts) but those it derives, and the password: compared by
  // its hash, never shown.
  audit: {
    resource: 'customer',
    fields: (c) => [
      { field: 'TITLE', locale: null, value: c.title },
      { field: 'FIRSTNAME', locale: null, value: c.firstname },
      { field: 'LASTNAME', locale: null, value: c.lastname },
      { field: 'EMAIL', locale: null, value: c.email },
      { field: 'LANG_ID', locale: null, value: c.langId },
      { field: 'ADDRESS1', locale: null, value: c.address1 },
      { field: 'ADDRESS2', locale: null, value: c.address2 },
      { field: 'ADDRESS3', locale: null, value: c.address3 },
      { field: 'ZIPCODE', locale: null, value: c.zipcode },
      { field: 'CITY', locale: null, value: c.city },
      { field: 'COUNTRY', locale: null, value: c.country },
      { field: 'PASSWORD', locale: null, value: c.passwordHash, secret: true },
    ],
  },
});

/** Login checks per email (in its identity form, login-throttle.ts): at most 10 failed ones in a window of 10 minutes. */
export const loginAttempts = defineWindowCounter({ prefix: 'LOGIN', seconds: 600, limit: 10 });

/** An email's lock as checkLogin reads it: the hash it carries (`carry` above); a lock written before it carried one has none. */
export const StoredEmailLock = defineStored('customer email lock', { passwordHash: v.optional(v.string()) });
