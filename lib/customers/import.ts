/**
 * What customers are to a store's import (docs/moving-from-thelia.md, lib/import/kind.ts): Thelia's `customer`
 * rows with their default address, mapped through the API's own create schema with the bcrypt hash
 * Thelia keeps in place of a password (verified, then upgraded, at the customer's first check);
 * written many to a transaction with their email locks, a taken email naming its holder. Tooling:
 * only `npm run import` loads it.
 */
import * as v from 'valibot';
import { contentOf } from '../import/destination.js';
import { defineImportKind } from '../import/kind.js';
import { changedTexts, datesOf, list, problemsOf, type Mapped, type Problem } from '../import/mapping.js';
import { dateOf, groupBy, numberOrNull, type TheliaSource } from '../import/source.js';
import { present } from '../present.js';
import { defaultLang, langByLocale } from '../reference/index.js';
import { customers, type Customer } from './entity.js';
import { deleteCustomer, newCustomer } from './operations.js';
import { isBcrypt } from './password.js';
import { idRef } from './row.js';
import { CustomerFields, zipcodeFits, zipcodeMismatch } from './schema.js';
import { identifier } from '../validation.js';

export interface TheliaCustomer {
  id: number;
  ref: string | null;
  titleId: number;
  langId: number | null;
  firstname: string;
  lastname: string;
  email: string | null;
  password: string | null;
  algo: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  /** The addresses marked `is_default = 1`. */
  defaultAddresses: { id: number; countryId: number; zipcode: string; city: string; address1: string; address2: string; address3: string }[];
}

/** Customers with their default addresses. */
async function* customerRows(source: TheliaSource, size: number): AsyncGenerator<TheliaCustomer[]> {
  const columns = 'id, ref, title_id, lang_id, firstname, lastname, email, password, algo, created_at, updated_at';
  for await (const customers of source.idBatches('customer', columns, size)) {
    const ids = customers.map((c) => Number(c.id));
    const addresses = await source.select(
      'SELECT customer_id, id, country_id, zipcode, city, address1, address2, address3 FROM address WHERE customer_id IN (?) AND is_default = 1 ORDER BY customer_id, id',
      [ids],
    );
    const addressesOf = groupBy(addresses, 'customer_id', (r) => ({
      id: Number(r.id),
      countryId: Number(r.country_id),
      zipcode: String(r.zipcode),
      city: String(r.city),
      address1: String(r.address1),
      address2: String(r.address2 ?? ''),
      address3: String(r.address3 ?? ''),
    }));
    yield customers.map((c) => ({
      id: Number(c.id),
      ref: c.ref === null || c.ref === undefined ? null : String(c.ref),
      titleId: Number(c.title_id),
      langId: numberOrNull(c.lang_id),
      firstname: String(c.firstname),
      lastname: String(c.lastname),
      email: c.email as string | null,
      password: c.password as string | null,
      algo: c.algo as string | null,
      createdAt: dateOf(c.created_at),
      updatedAt: dateOf(c.updated_at),
      defaultAddresses: addressesOf.get(Number(c.id)) ?? [],
    }));
  }
}

const CUSTOMER_COLUMNS: Record<string, string> = {
  title: 'customer.title_id',
  firstname: 'customer.firstname',
  lastname: 'customer.lastname',
  email: 'customer.email',
  lang_id: 'customer.lang_id',
  country: 'address.country_id',
  zipcode: 'address.zipcode',
  city: 'address.city',
  address1: 'address.address1',
  address2: 'address.address2',
  address3: 'address.address3',
};

/** A customer's fields as the API's create checks them, with a password hash instead of a password (kept here: no Lambda needs it). */
const CustomerImport = v.pipe(
  v.omit(CustomerFields, ['password']),
  v.forward(
    v.partialCheck([['country'], ['zipcode']], (c) => zipcodeFits(c.country, c.zipcode), zipcodeMismatch),
    ['zipcode'],
  ),
);

/** A whole bcrypt hash, as PHP's password_hash(PASSWORD_BCRYPT) writes it: checkLogin verifies it (isBcrypt) and upgrades it. */
const isWholeBcryptHash = (hash: string): boolean => isBcrypt(hash) && /^.{7}[./A-Za-z0-9]{53}$/.test(hash);

/** What a customer's mapping takes of the store: the language a customer without one speaks. */
export interface CustomerContext {
  /** The store's default language (`lang.by_default`, by its locale), else the API's. */
  defaultLangId: number;
}

/** The store's default language as the API knows it (by its locale); the API's when the store names none it knows. */
async function storeLanguage(source: TheliaSource): Promise<number> {
  if (!(await source.has('lang'))) return defaultLang.id;
  const [row] = await source.select('SELECT locale FROM lang WHERE by_default = 1 ORDER BY id LIMIT 1');
  return (row && langByLocale.get(String(row.locale))?.id) ?? defaultLang.id;
}

export function mapCustomer(customer: TheliaCustomer, context: CustomerContext = { defaultLangId: defaultLang.id }): Mapped<Customer> {
  const problems: Problem[] = [];
  const dates = datesOf('customer', customer, problems);
  const [address, ...otherAddresses] = customer.defaultAddresses;
  if (!address) problems.push({ field: 'address.is_default', message: 'the customer has no default address' });
  else if (otherAddresses.length)
    problems.push({ field: 'address.is_default', message: `the customer has ${customer.defaultAddresses.length} default addresses (${list(customer.defaultAddresses.map((a) => a.id))})` });
  const passwordHash = customer.password ?? '';
  if (!passwordHash) problems.push({ field: 'customer.password', message: 'is empty' });
  else if (!isWholeBcryptHash(passwordHash)) {
    problems.push({ field: 'customer.password', message: `is not a bcrypt hash (algo ${customer.algo ?? 'NULL'}): the API verifies bcrypt and its own hashes only` });
  }

  const parsed = v.safeParse(CustomerImport, {
    title: customer.titleId,
    firstname: customer.firstname,
    lastname: customer.lastname,
    email: customer.email ?? undefined,
    lang_id: customer.langId ?? context.defaultLangId,
    country: address?.countryId ?? 0,
    zipcode: address?.zipcode ?? '',
    city: address?.city ?? '',
    address1: address?.address1 ?? '',
    address2: address?.address2 ?? '',
    address3: address?.address3 ?? '',
  });
  if (!parsed.success) {
    const columns = problemsOf(parsed.issues, ([field]) => CUSTOMER_COLUMNS[String(field)] ?? String(field));
    // Without a default address, its fields have nothing to say.
    problems.push(...(address ? columns : columns.filter((problem) => !problem.field.startsWith('address.'))));
  }
  const ref = v.safeParse(identifier(), customer.ref ?? '');
  if (customer.ref !== null && !ref.success) problems.push(...problemsOf(ref.issues, () => 'customer.ref'));
  if (!parsed.success || problems.length || !dates) return { problems };
  // Thelia's reference is kept, unless it is the one the id makes (docs/conventions.md's REF).
  const kept = ref.success && ref.output !== '' && ref.output !== idRef(customer.id) ? { ref: ref.output } : {};
  const given = { firstname: customer.firstname, lastname: customer.lastname, email: customer.email, ...address };
  const normalized = [
    ...changedTexts({ table: 'customer', row: customer.id }, given, parsed.output, ['firstname', 'lastname', 'email']),
    ...changedTexts({ table: 'address', row: present(address, 'the default address').id }, given, parsed.output, ['zipcode', 'city', 'address1', 'address2', 'address3']),
    ...(customer.langId === null ? [{ table: 'customer', row: customer.id, column: 'lang_id', what: "empty: the store's default language", before: null, after: context.defaultLangId }] : []),
  ];
  return { record: { ...newCustomer(parsed.output, { id: customer.id, passwordHash, ...dates }), ...kept }, normalized };
}

export const importKind = defineImportKind<TheliaCustomer, Customer>({
  kind: 'customer',
  table: 'customer',
  absent: 'is not a customer of the source',
  counter: customers.counter,
  async begin(source, size) {
    const context = { defaultLangId: await storeLanguage(source) };
    return { batches: customerRows(source, size), map: (customer) => mapCustomer(customer, context) };
  },
  writer: {
    readMany: (ids) => customers.readMany(ids),
    steps: (stamp, records) => customers.create(stamp, ...records),
    updateSteps: (stamp, stored, next) => customers.replace(stamp, stored, next, stored.version),
    same(stored, imported) {
      // A bcrypt hash is upgraded at the customer's first successful check: that is no change of content.
      const ignored = isBcrypt(stored.passwordHash) ? [] : ['passwordHash'];
      return contentOf(stored, ignored) === contentOf(imported, ignored);
    },
    unique: { column: 'customer.email', valueOf: (c) => c.email, lockKey: (email) => customers.lockKey('email', email), ownerOf: (lock) => customers.lockOwner(lock) },
    // Four steps a customer (the record, its email lock, its change and the change's marker), one for the record count.
    perTransaction: 24,
  },
  pages: () => customers.pages(),
  remove: deleteCustomer,
});
