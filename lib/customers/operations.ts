/**
 * Customer operations. Each write is one transaction over the customer, its email lock (which
 * carries the password hash for checkLogin) and the list counters, all declared in entity.ts. Each
 * write is an operation's reads (and hashing), then a plan made from them alone (`…Plan`, unit-tested
 * by its steps), committed by whoever runs it (lib/db/write-plan.ts).
 */
import { NotFound, WriteConflict } from '../db/errors.js';
import { readItem } from '../db/items.js';
import { commitOnce, plan, planOnce, recordedPlan, stepsWrite, Write, type WritePlan } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { invalidField } from '../errors.js';
import type { Row } from '../row.js';
import { customers, StoredEmailLock, type Customer } from './entity.js';
import { releaseLoginCheck, reserveLoginCheck } from './login-throttle.js';
import { hashPassword, verifyPassword } from './password.js';
import { customerRow } from './row.js';
import { zipcodeFits, zipcodeMismatch, type CheckLoginInput, type CustomerCreateInput, type CustomerUpdateInput } from './schema.js';

const missing = () => new NotFound('customer');

async function readCustomer(id: number): Promise<Customer> {
  const customer = await customers.read(id);
  if (!customer) throw missing();
  return customer;
}

export const getCustomer = async (id: number): Promise<Row> => customerRow(await readCustomer(id));

/** What a record's creation sets besides the create's fields: its id, password hash and dates. */
export interface CustomerCreation {
  id: number;
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
}

/** A new customer record, at version 1, from the create's fields (the API's, or a store's import). */
export function newCustomer(fields: Omit<CustomerCreateInput, 'password'>, creation: CustomerCreation): Customer {
  return {
    id: creation.id,
    title: fields.title,
    firstname: fields.firstname,
    lastname: fields.lastname,
    email: fields.email,
    langId: fields.lang_id,
    country: fields.country,
    zipcode: fields.zipcode,
    city: fields.city,
    address1: fields.address1,
    address2: fields.address2 ?? '',
    address3: fields.address3 ?? '',
    passwordHash: creation.passwordHash,
    version: 1,
    createdAt: creation.createdAt,
    updatedAt: creation.updatedAt,
  };
}

/** A create's plan, given its id, hash and instant: the customer, its email lock and its count. */
export function createCustomerPlan(input: CustomerCreateInput, made: { id: number; passwordHash: string; stamp: WriteStamp }): WritePlan<Row> {
  const customer = newCustomer(input, { id: made.id, passwordHash: made.passwordHash, createdAt: made.stamp.now, updatedAt: made.stamp.now });
  return recordedPlan(customers.create(made.stamp, customer), customerRow(customer));
}

/** Planned once: a conflict sends the same customer again, under the id and hash it was given. */
export const createCustomer = (input: CustomerCreateInput): Write<Row> =>
  planOnce(async (stamp) => {
    const [id, passwordHash] = await Promise.all([customers.allocateId(), hashPassword(input.password)]);
    return createCustomerPlan(input, { id, passwordHash, stamp });
  });

/** An update's plan: the customer replaced at the version expected (else read), its email lock moved with a new email. */
export function updateCustomerPlan(input: CustomerUpdateInput, expectedVersion: number | undefined, reads: { current: Customer; newHash: string | undefined; stamp: WriteStamp }): WritePlan<Row> {
  const { current } = reads;
  const next: Customer = {
    ...current,
    title: input.title ?? current.title,
    firstname: input.firstname ?? current.firstname,
    lastname: input.lastname ?? current.lastname,
    email: input.email ?? current.email,
    langId: input.lang_id ?? current.langId,
    country: input.country ?? current.country,
    zipcode: input.zipcode ?? current.zipcode,
    city: input.city ?? current.city,
    address1: input.address1 ?? current.address1,
    address2: input.address2 ?? current.address2,
    address3: input.address3 ?? current.address3,
    passwordHash: reads.newHash ?? current.passwordHash,
    version: current.version + 1,
    updatedAt: reads.stamp.now,
  };
  // Sent together, the schema checked them; sent alone, either one meets the stored other here.
  const alone = (input.country === undefined) !== (input.zipcode === undefined);
  if (alone && !zipcodeFits(next.country, next.zipcode)) throw invalidField('zipcode', zipcodeMismatch);
  if (customers.unchanged(current, next, expectedVersion)) return plan([], customerRow(current));
  return plan(customers.replace(reads.stamp, current, next, expectedVersion), customerRow(next));
}

/** A new password is hashed once, whatever attempts its write takes. */
export function updateCustomer(input: CustomerUpdateInput, expectedVersion: number | undefined): Write<Row> {
  let newHash: Promise<string> | undefined;
  return new Write(async (stamp) => {
    if (input.password !== undefined) newHash ??= hashPassword(input.password);
    const [current, hash] = await Promise.all([readCustomer(input.id), newHash]);
    return updateCustomerPlan(input, expectedVersion, { current, newHash: hash, stamp });
  });
}

export const deleteCustomer = (id: number, expectedVersion: number | undefined): Write<void> =>
  new Write(async (stamp) => plan(customers.remove(stamp, await readCustomer(id), expectedVersion), undefined));

const noMatch = () => new NotFound('customer with this email and password');

/**
 * The row when the pair matches, else one and the same NotFound. The check is counted before the
 * password is verified (given back on success); an unknown email is checked against dummy hashes
 * (password.ts) so that it takes as long as a wrong password, and counts as a failure too.
 */
export async function checkLogin(input: CheckLoginInput): Promise<Row> {
  const [login] = await Promise.all([readItem(customers.lockKey('email', input.email)), reserveLoginCheck(input.email)]);
  const storedHash = login && StoredEmailLock.parse(login).passwordHash;
  const verification = await verifyPassword(input.password, storedHash);
  const customerId = login && customers.lockOwner(login);
  if (storedHash === undefined || customerId === undefined || !verification.matches) throw noMatch();
  const [customer] = await Promise.all([customers.read(customerId), releaseLoginCheck(input.email)]);
  if (!customer) throw noMatch();
  if (verification.needsRehash) await upgradeHash(customer, storedHash, input.password);
  return customerRow(customer);
}

/** Replaces an old-scheme hash (Thelia's bcrypt, weaker Argon2 parameters) after a successful check. */
async function upgradeHash(customer: Customer, oldHash: string, password: string): Promise<void> {
  const change = { set: { passwordHash: await hashPassword(password) }, when: { passwordHash: oldHash } };
  try {
    await commitOnce(stepsWrite(() => [customers.patch(customer.id, change), customers.patchLock('email', customer.email, change)]));
  } catch (error) {
    // A concurrent password change wins; the upgrade is only an improvement.
    if (!(error instanceof WriteConflict)) throw error;
  }
}
