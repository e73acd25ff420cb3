/**
 * Customer operations. Writes are transactions over the customer item, its login item (which holds
 * the email's uniqueness) and the list counters; a failed condition becomes a 404, 409 or 412.
 */
import { readItem, readItems } from '../db/items.js';
import { allocateId, countChange, type CountedList } from '../db/counters.js';
import { keys } from '../db/keys.js';
import { toLoop, type LoopResult } from '../db/loop.js';
import { queryIndexPage, singleRecordPage } from '../db/paging.js';
import { atVersion, ownedBy, put, putNew, remove, retryOnConflict, update, versionMismatch, writeAtomically, WriteConflict, type WriteStep } from '../db/transactions.js';
import { conflict, invalidField, notFound, HttpProblem } from '../http/problem.js';
import { countries, zipCodeMatches } from '../reference/index.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import { recordFailure, tooManyFailures } from './login-throttle.js';
import { fromItem, LIST_PARTITION, loginItem, toItem, toRow, type Customer, type LoginItem } from './model.js';
import { zipcodeMismatch, type CheckLoginInput, type CustomerCreateInput, type CustomerListInput, type CustomerUpdateInput } from './schema.js';

export const CUSTOMERS: CountedList = {
  kind: 'CUSTOMER',
  partitions: [
    { index: 'GSI1', partition: LIST_PARTITION },
    { index: 'GSI2', partition: LIST_PARTITION },
  ],
};

const missing = () => notFound('customer');
const emailTaken = () => conflict('a customer already has this email', 'email');

async function readCustomer(id: number): Promise<Customer | undefined> {
  const item = await readItem(keys.customer(id));
  return item ? fromItem(item) : undefined;
}

export async function getCustomer(id: number): Promise<LoopResult> {
  const customer = await readCustomer(id);
  if (!customer) throw missing();
  return toLoop([toRow(customer)]);
}

/** The customer holding an email (case-insensitive), through its login item. */
async function customerByEmail(email: string): Promise<Customer | undefined> {
  const login = await readItem(keys.customerEmail(email));
  return login ? readCustomer(Number(login.customerId)) : undefined;
}

const REF = /^CUS(\d{12})$/;

export async function listCustomers(query: CustomerListInput, path: string): Promise<LoopResult> {
  // Filters name at most one customer: they are served by a key, not a page.
  if (query.email !== undefined || query.ref !== undefined) {
    let found = query.email !== undefined ? await customerByEmail(query.email) : undefined;
    if (query.ref !== undefined) {
      const id = REF.exec(query.ref)?.[1];
      if (query.email === undefined) found = id && Number(id) > 0 ? await readCustomer(Number(id)) : undefined;
      else if (found && found.id !== Number(id)) found = undefined;
    }
    return toLoop(singleRecordPage(found, query).map(toRow));
  }
  const byLastname = query.order.startsWith('lastname');
  const page = await queryIndexPage(
    {
      index: byLastname ? 'GSI2' : 'GSI1',
      partition: LIST_PARTITION,
      forward: !query.order.endsWith('_reverse'),
      counted: true,
      scope: `customers|${query.order}`,
      path,
      query: { order: query.order },
    },
    query,
  );
  return toLoop(page.items.map((item) => toRow(fromItem(item))), page.headers);
}

export async function createCustomer(input: CustomerCreateInput): Promise<LoopResult> {
  const [id, passwordHash] = await Promise.all([allocateId(CUSTOMERS), hashPassword(input.password)]);
  const now = new Date().toISOString();
  const customer: Customer = {
    id,
    title: input.title,
    firstname: input.firstname,
    lastname: input.lastname,
    email: input.email,
    langId: input.lang_id,
    country: input.country,
    zipcode: input.zipcode,
    city: input.city,
    address1: input.address1,
    address2: input.address2 ?? '',
    address3: input.address3 ?? '',
    passwordHash,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await retryOnConflict(() =>
    writeAtomically([
      putNew(loginItem(customer), emailTaken),
      putNew(toItem(customer), () => new HttpProblem(409, `customer ${id} already exists`)),
      ...countChange(CUSTOMERS, 1),
    ]),
  );
  return toLoop([toRow(customer)]);
}

export async function updateCustomer(input: CustomerUpdateInput, expectedVersion: number | undefined): Promise<LoopResult> {
  const newHash = input.password !== undefined ? await hashPassword(input.password) : undefined;
  const updated = await retryOnConflict(async () => {
    const current = await readCustomer(input.id);
    if (!current) throw missing();
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
      passwordHash: newHash ?? current.passwordHash,
      version: current.version + 1,
      updatedAt: new Date().toISOString(),
    };
    if ((input.country !== undefined || input.zipcode !== undefined) && !zipCodeMatches(countries.get(next.country)!, next.zipcode)) {
      throw invalidField('zipcode', zipcodeMismatch);
    }
    const steps: WriteStep[] = [put(toItem(next), atVersion(expectedVersion, current.version), versionMismatch(expectedVersion, 'customer'))];
    const ownLogin = ownedBy('customerId', current.id);
    if (next.email.toLowerCase() !== current.email.toLowerCase()) {
      steps.push(remove(keys.customerEmail(current.email), ownLogin, () => new WriteConflict()));
      steps.push(putNew(loginItem(next), emailTaken));
    } else if (next.passwordHash !== current.passwordHash) {
      // Same email (perhaps in another case): the login item keeps its key and gets the new hash.
      steps.push(put(loginItem(next), ownLogin, () => new WriteConflict()));
    }
    await writeAtomically(steps);
    return next;
  });
  return toLoop([toRow(updated)]);
}

export async function deleteCustomer(id: number, expectedVersion: number | undefined): Promise<void> {
  await retryOnConflict(async () => {
    const current = await readCustomer(id);
    if (!current) throw missing();
    await writeAtomically([
      remove(keys.customer(id), atVersion(expectedVersion, current.version), versionMismatch(expectedVersion, 'customer')),
      remove(keys.customerEmail(current.email), ownedBy('customerId', id), () => new WriteConflict()),
      ...countChange(CUSTOMERS, -1),
    ]);
  });
}

const noMatch = () => notFound('customer with this email and password');

/**
 * 200 with the row when the pair matches, else one and the same 404. An unknown email is checked
 * against a dummy hash so that it takes as long as a wrong password; both count as failures.
 */
export async function checkLogin(input: CheckLoginInput): Promise<LoopResult> {
  const items = await readItems([keys.customerEmail(input.email), keys.loginFailures(input.email)]);
  const login = items.find((item) => item.pk === keys.customerEmail(input.email).pk) as LoginItem | undefined;
  const failures = items.find((item) => item.pk === keys.loginFailures(input.email).pk);
  const throttled = tooManyFailures(failures);
  if (throttled) throw throttled;

  const verification = await verifyPassword(input.password, login?.passwordHash ?? (await dummyHash()));
  if (!login || !verification.matches) {
    await recordFailure(input.email, failures);
    throw noMatch();
  }
  const customer = await readCustomer(login.customerId);
  if (!customer) throw noMatch();
  if (verification.needsRehash) await upgradeHash(customer, login.passwordHash, input.password);
  return toLoop([toRow(customer)]);
}

/** Replaces an old-scheme hash (Thelia's bcrypt, weaker Argon2 parameters) after a successful check. */
async function upgradeHash(customer: Customer, oldHash: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  const sameHash = { condition: 'passwordHash = :old', values: { ':old': oldHash, ':hash': passwordHash } };
  try {
    await writeAtomically([
      update(keys.customer(customer.id), { update: 'SET passwordHash = :hash', ...sameHash }),
      update(keys.customerEmail(customer.email), { update: 'SET passwordHash = :hash', ...sameHash }),
    ]);
  } catch (error) {
    // A concurrent password change wins; the upgrade is only an improvement.
    if (!(error instanceof WriteConflict)) throw error;
  }
}
