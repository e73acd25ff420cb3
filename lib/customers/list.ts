/**
 * The customer list's loop arguments and orders (docs/lists.md), and what the search index keeps of
 * a customer: its names, email, ref and dates, never its password's hash. The table serves an email
 * (its lock) or a ref (its id), and the whole list by id, reference, last name or registration date
 * (counted; `created_since` as a range of the last); the index, the rest.
 */
import type * as v from 'valibot';
import { both, defineList, listQuerySchema, search, since, textIs } from '../db/lists/arguments.js';
import { runList, tableOrder, type TableRoute } from '../db/lists/plan.js';
import { fold } from '../db/lists/query.js';
import { langParam } from '../i18n.js';
import { instant } from '../validation.js';
import { customers, type Customer } from './entity.js';
import { customerRef } from './row.js';
import { mapPage, type Page, type PageRequest } from '../db/page.js';
import { searchEngine } from '../opensearch/index.js';
import { defaultLang } from '../reference/index.js';
import type { Row } from '../row.js';
import { customerRow } from './row.js';

export const customerList = defineList<Customer>({
  kind: 'customers',
  resource: 'customer',
  arguments: {
    ref: textIs('ref', 'the customer of this reference (CUS and 12 digits)'),
    email: textIs('email', 'the customer of this email, compared case-insensitively'),
    ...search(['ref', 'firstname', 'lastname', 'email'], ['ref', 'firstname', 'lastname', 'email']),
    updated_since: since('updatedAt', instant(), 'updated at or after this instant'),
    created_since: since('createdAt', instant(), 'registered at or after this instant'),
  },
  orders: {
    ...both('id', 'id'),
    // A ref is made of its id: the same order.
    ...both('reference', 'id'),
    ...both('firstname', 'firstname', true),
    ...both('lastname', 'lastname', true),
    ...both('registration_date', 'createdAt'),
  },
  defaultOrder: () => 'id',
  document: (c) => ({
    id: c.id,
    values: { createdAt: c.createdAt, updatedAt: c.updatedAt },
    texts: { ref: fold(customerRef(c)), firstname: fold(c.firstname), lastname: fold(c.lastname), email: fold(c.email) },
  }),
});

const REF = /^CUS(\d{12})$/i;
const found = (customer: Customer | undefined) => ({ items: customer ? [customer] : [] });

/** What the table serves, first match first. */
export const customerRoutes: readonly TableRoute<Customer>[] = [
  { requires: ['email'], serves: 'any', orders: 'any', read: async (args) => found(await customers.findByLock('email', args.email as string)) },
  {
    // A reference its id makes names the customer by id (one whose Thelia reference the import kept
    // has that one instead); any other reference is the index's to find.
    requires: ['ref'],
    when: (args) => REF.test((args.ref as string).trim()),
    serves: 'any',
    orders: 'any',
    read: async (args) => {
      const asked = (args.ref as string).trim();
      const customer = await customers.read(Number(REF.exec(asked)?.[1] ?? 0));
      return found(customer && fold(customerRef(customer)) === fold(asked) ? customer : undefined);
    },
  },
  {
    serves: [],
    orders: ['id', 'id_reverse', 'reference', 'reference_reverse', 'lastname', 'lastname_reverse'],
    read: (_args, order, page) => customers.list('all', tableOrder(order.replace('reference', 'id')), page),
  },
  {
    serves: ['created_since'],
    orders: ['registration_date', 'registration_date_reverse'],
    read: (args, order, page) => customers.list('byRegistration', { ...tableOrder(order), order: 'created', from: args.created_since as string | undefined }, page),
  },
];

export const CustomerListQuery = listQuerySchema(customerList, {
  // Customer rows are not localized, but a bad `lang` is refused as on every list.
  lang: langParam(),
});
export type CustomerListInput = v.InferOutput<typeof CustomerListQuery>;

export async function listCustomers(query: CustomerListInput, page: PageRequest): Promise<Page<Row>> {
  const reading = { locale: defaultLang.locale, fallback: defaultLang.locale };
  const found = await runList({ list: customerList, routes: customerRoutes, args: query, reading, readMany: (ids) => customers.readMany(ids), engine: searchEngine(), id: (c) => c.id }, page);
  return mapPage(found, customerRow);
}
