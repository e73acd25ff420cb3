/**
 * Thelia rows → the API's records (CONTRACT §10), or the problems that keep a row out. Every value
 * goes through the same valibot schemas as the API's own creates, so that an imported record is one
 * the API could have written; what the API cannot represent is never guessed at but named, with the
 * Thelia column it comes from. Pure: no database here.
 */
import { present } from '../present.js';
import * as v from 'valibot';
import type { Category } from '../categories/entity.js';
import { newCategory } from '../categories/operations.js';
import { CategoryTexts } from '../categories/schema.js';
import type { Customer } from '../customers/entity.js';
import { newCustomer } from '../customers/operations.js';
import { isBcrypt } from '../customers/password.js';
import { CustomerFields, zipcodeFits, zipcodeMismatch } from '../customers/schema.js';
import { TEXT_FIELDS, type Product } from '../products/entity.js';
import { newProduct } from '../products/operations.js';
import { sentTexts } from '../catalog-texts.js';
import { ProductGeneral, ProductTexts } from '../products/schema.js';
import { currencyIds, defaultLang, langByLocale } from '../reference/index.js';
import type { TaxRule } from '../tax-rules/entity.js';
import { newTaxRule } from '../tax-rules/operations.js';
import { TaxRuleCreate } from '../tax-rules/schema.js';
import { flag, integer } from '../validation.js';
import type { TheliaCategory, TheliaCustomer, TheliaProduct, TheliaTaxRule } from './source.js';

/** Why a row is not imported: the Thelia column at fault and what is wrong with it. */
export interface Problem {
  field: string;
  message: string;
}

/**
 * A value the import changed on its way in (CONTRACT §10): the Thelia row it came from (its table, its
 * id, and for a text its locale), the column, what was done to it, and the value before and after.
 */
export interface Normalization {
  table: string;
  row: number;
  locale?: string;
  column: string;
  what: string;
  before: string | null;
  after: string | number | null;
}

export type Mapped<R> = { record: R; problems?: undefined; normalized: Normalization[] } | { record?: undefined; problems: Problem[]; normalized?: undefined };

/** What the API's text schemas did to a text (they trim it and put it in NFC), in the order they do it. */
export function whatChanged(before: string, after: string): string {
  const steps: string[] = [];
  let text = before;
  if (text.trim() !== text) steps.push('trimmed');
  text = text.trim();
  if (text.normalize('NFC') !== text) steps.push('normalized to NFC');
  text = text.normalize('NFC');
  if (text !== after) steps.push('changed');
  return steps.join(', ');
}

/** The texts a schema changed, each named by its Thelia row and column: the values given and the values kept. */
function changedTexts(place: Omit<Normalization, 'column' | 'what' | 'before' | 'after'>, given: Record<string, unknown>, kept: Record<string, unknown>, columns: readonly string[]): Normalization[] {
  const changed: Normalization[] = [];
  for (const column of columns) {
    const [before, after] = [given[column], kept[column]];
    if (typeof before !== 'string' || before === after) continue;
    changed.push({ ...place, column, what: whatChanged(before, typeof after === 'string' ? after : ''), before, after: typeof after === 'string' ? after : null });
  }
  return changed;
}

type Path = readonly (string | number)[];

/** Problems from a schema's issues, named by the Thelia column each input field came from. */
function problemsOf(issues: readonly v.BaseIssue<unknown>[], column: (path: Path) => string): Problem[] {
  const problems = new Map<string, Problem>();
  for (const issue of issues) {
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    const field = column(path);
    if (problems.has(field)) continue; // the first issue of a field is the most basic one
    const message =
      issue.input === undefined && issue.kind === 'schema' ? 'is empty' : typeof issue.input === 'number' && /^is /.test(issue.message) ? `${issue.input} ${issue.message}` : issue.message;
    problems.set(field, { field, message });
  }
  return [...problems.values()];
}

/** Thelia's DATETIME as the API's ISO string. */
const iso = (date: Date): string => date.toISOString();

/** A text column: empty (NULL or blank) means no text. */
const textOf = (value: string | null): string | undefined => (value === null || value.trim() === '' ? undefined : value);

/** Texts made only of spaces, which the import keeps as no text: values changed on the way in. */
function blankTexts<C extends string>(rows: readonly ({ locale: string } & Record<C, string | null>)[], place: { table: string; row: number }, columns: readonly C[]): Normalization[] {
  return rows.flatMap((row) =>
    columns.flatMap((column) => {
      const value = row[column];
      return value && textOf(value) === undefined ? [{ ...place, locale: row.locale, column, what: 'trimmed to nothing: no text', before: value, after: null }] : [];
    }),
  );
}

/** A record's dates: its creation is required; a record never updated was last updated when created. */
function datesOf(table: string, row: { createdAt: Date | null; updatedAt: Date | null }, problems: Problem[]) {
  if (!row.createdAt) {
    problems.push({ field: `${table}.created_at`, message: 'is empty' });
    return undefined;
  }
  return { createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt ?? row.createdAt) };
}

const list = (values: readonly unknown[]) => values.join(', ');

/**
 * A rule's countries and ordered taxes. The API applies one list of taxes, compounding in order, to
 * all of a rule's countries: a rule whose countries differ, whose taxes share a position (Thelia
 * applies those to the same base) or that narrows a country to a state is not representable.
 */
function countriesAndTaxes(rule: TheliaTaxRule, problems: Problem[]): { countries: number[]; taxes: number[] } {
  const state = rule.countryTaxes.find((row) => row.stateId !== null);
  if (state) problems.push({ field: 'tax_rule_country.state_id', message: `narrows country ${state.countryId} to state ${state.stateId}, which the API cannot represent` });
  const taxesByCountry = new Map<number, { taxId: number; position: number }[]>();
  for (const row of rule.countryTaxes) taxesByCountry.set(row.countryId, [...(taxesByCountry.get(row.countryId) ?? []), row]);
  const orders = new Map<string, number>();
  for (const [country, rows] of taxesByCountry) {
    const sorted = [...rows].sort((a, b) => a.position - b.position);
    const shared = sorted.find((row, i) => i > 0 && sorted[i - 1]?.position === row.position);
    if (shared) {
      problems.push({
        field: 'tax_rule_country.position',
        message: `taxes share position ${shared.position} in country ${country} (Thelia applies them to the same base), which the API cannot represent`,
      });
    }
    const order = list(sorted.map((row) => row.taxId));
    if (!orders.has(order)) orders.set(order, country);
  }
  if (orders.size > 1) {
    const examples = [...orders].slice(0, 2).map(([taxes, country]) => `country ${country}: taxes ${taxes}`);
    problems.push({ field: 'tax_rule_country', message: `its countries apply different taxes (${examples.join('; ')}); the API applies one list of taxes to all of a rule's countries` });
  }
  const countries = [...taxesByCountry.keys()].sort((a, b) => a - b);
  const [first] = countries;
  const taxes = [...((first !== undefined && taxesByCountry.get(first)) || [])].sort((a, b) => a.position - b.position).map((row) => row.taxId);
  return { countries, taxes };
}

export function mapTaxRule(rule: TheliaTaxRule): Mapped<TaxRule> {
  const problems: Problem[] = [];
  const dates = datesOf('tax_rule', rule, problems);
  const { countries, taxes } = countriesAndTaxes(rule, problems);
  const i18n = rule.i18n
    .map((row) => ({ locale: row.locale, title: textOf(row.title), description: textOf(row.description) }))
    .filter((row) => row.title !== undefined || row.description !== undefined);
  const input = {
    country: countries,
    tax: taxes,
    i18n: i18n.map(({ locale, title, description }) => ({ locale, title, ...(description !== undefined ? { description } : {}) })),
    default: rule.isDefault,
  };
  const parsed = v.safeParse(TaxRuleCreate, input);
  if (rule.countryTaxes.length === 0) problems.push({ field: 'tax_rule_country', message: 'the rule has no country' });
  if (!parsed.success) {
    const known = new Set(problems.map((problem) => problem.field.split('.')[0]));
    const schemaProblems = problemsOf(parsed.issues, ([field, index, key]) => {
      if (field === 'country') return 'tax_rule_country.country_id';
      if (field === 'tax') return 'tax_rule_country.tax_id';
      if (field === 'default') return 'tax_rule.is_default';
      const locale = typeof index === 'number' ? i18n[index]?.locale : undefined;
      return locale === undefined ? 'tax_rule_i18n' : `tax_rule_i18n[${locale}].${key ?? 'locale'}`;
    });
    for (const problem of schemaProblems) {
      if (problem.field === 'tax_rule_i18n' && /empty/.test(problem.message)) problems.push({ ...problem, message: 'has no title in any locale' });
      else if (!known.has(problem.field.split('.')[0] ?? '')) problems.push(problem);
    }
  }
  if (!parsed.success || problems.length || !dates) return { problems };
  const normalized = [
    ...blankTexts(rule.i18n, { table: 'tax_rule_i18n', row: rule.id }, ['title', 'description']),
    ...i18n.flatMap((given, index) =>
      changedTexts({ table: 'tax_rule_i18n', row: rule.id, locale: given.locale }, given, present(parsed.output.i18n[index], `i18n entry ${index}`), ['title', 'description']),
    ),
  ];
  return { record: newTaxRule(parsed.output, { id: rule.id, ...dates }), normalized };
}

/** What the products' mapping needs to know of the rest of the store. */
export interface ProductContext {
  /** The shop's default currency, or why there is none to use. */
  currency: { id: number } | { problem: string };
  /** Why a tax rule cannot be used (skipped, or not in the store); undefined when it can. */
  taxRuleProblem: (id: number) => string | undefined;
}

const PRODUCT_COLUMNS: Record<string, string> = {
  ref: 'product.ref',
  default_category: 'product_category.category_id',
  price: 'product_price.price',
  currency: 'currency.id',
  tax_rule: 'product.tax_rule_id',
  weight: 'product_sale_elements.weight',
  visible: 'product.visible',
  brand_id: 'product.brand_id',
};

type TextRow = { locale: string; title: string | null; chapo: string | null; description: string | null; postscriptum: string | null };

/**
 * A record's texts per locale, from its `<table>` rows (products' and categories' texts are the same
 * four), through the API's own schema of them; a locale whose texts are all empty is no translation.
 */
function localizedTexts(
  rows: readonly TextRow[],
  place: { table: 'product_i18n' | 'category_i18n'; row: number },
  schema: typeof ProductTexts | typeof CategoryTexts,
  problems: Problem[],
  normalized: Normalization[],
): Product['i18n'] {
  const i18n: Product['i18n'] = {};
  normalized.push(...blankTexts(rows, place, TEXT_FIELDS));
  for (const row of rows) {
    const texts = Object.fromEntries(TEXT_FIELDS.map((field) => [field, textOf(row[field])]).filter(([, text]) => text !== undefined));
    if (Object.keys(texts).length === 0) continue;
    if (!langByLocale.has(row.locale)) {
      problems.push({ field: `${place.table}.locale`, message: `${row.locale} is not a known language locale` });
      continue;
    }
    const parsed = v.safeParse(schema, texts);
    if (parsed.success) {
      i18n[row.locale] = sentTexts(parsed.output);
      normalized.push(...changedTexts({ ...place, locale: row.locale }, texts, parsed.output, TEXT_FIELDS));
    } else problems.push(...problemsOf(parsed.issues, ([field]) => `${place.table}[${row.locale}].${String(field)}`));
  }
  if (Object.keys(i18n).length === 0 && problems.length === 0) problems.push({ field: place.table, message: 'has no title in any locale' });
  return i18n;
}

export interface CategoryContext {
  /** Why a parent cannot be used (skipped, or not in the source, or not reached from its root); undefined when it can. */
  parentProblem: (id: number) => string | undefined;
}

/** A category's flags as the API's update checks them. */
const CategoryImport = v.object({ visible: flag(), position: integer(0) });

export function mapCategory(category: TheliaCategory, context: CategoryContext): Mapped<Category> {
  const problems: Problem[] = [];
  const dates = datesOf('category', category, problems);
  const parentProblem = category.parent === 0 ? undefined : context.parentProblem(category.parent);
  if (parentProblem) problems.push({ field: 'category.parent', message: `category ${category.parent} ${parentProblem}` });
  const normalized: Normalization[] = [];
  const i18n = localizedTexts(category.i18n, { table: 'category_i18n', row: category.id }, CategoryTexts, problems, normalized);
  const parsed = v.safeParse(CategoryImport, { visible: category.visible, position: category.position });
  if (!parsed.success) problems.push(...problemsOf(parsed.issues, ([field]) => `category.${String(field)}`));
  if (!parsed.success || problems.length || !dates) return { problems };
  return { record: newCategory({ id: category.id, parent: category.parent, ...parsed.output, i18n, ...dates }), normalized };
}

export function mapProduct(product: TheliaProduct, context: ProductContext): Mapped<Product> {
  const problems: Problem[] = [];
  const dates = datesOf('product', product, problems);
  if (product.taxRuleId === null) problems.push({ field: 'product.tax_rule_id', message: 'is empty: the API needs a tax rule for every product' });
  else {
    const ruleProblem = context.taxRuleProblem(product.taxRuleId);
    if (ruleProblem) problems.push({ field: 'product.tax_rule_id', message: `tax rule ${product.taxRuleId} ${ruleProblem}` });
  }
  if ('problem' in context.currency) problems.push({ field: 'currency.by_default', message: context.currency.problem });
  const [saleElement, ...otherSaleElements] = product.defaultSaleElements;
  if (!saleElement) problems.push({ field: 'product_sale_elements.is_default', message: 'the product has no default sale element' });
  else if (otherSaleElements.length)
    problems.push({
      field: 'product_sale_elements.is_default',
      message: `the product has ${product.defaultSaleElements.length} default sale elements (${list(product.defaultSaleElements.map((e) => e.id))})`,
    });
  else if (saleElement.price === null && 'id' in context.currency && currencyIds.has(context.currency.id)) {
    // (An unknown currency is the problem to fix first: the schema names it below.)
    problems.push({ field: 'product_price.price', message: `sale element ${saleElement.id} has no price in the default currency (${context.currency.id})` });
  }
  if (product.defaultCategories.length > 1)
    problems.push({ field: 'product_category.default_category', message: `the product has ${product.defaultCategories.length} default categories (${list(product.defaultCategories)})` });
  const normalized: Normalization[] = [];
  const i18n = localizedTexts(product.i18n, { table: 'product_i18n', row: product.id }, ProductTexts, problems, normalized);

  const parsed = v.safeParse(ProductGeneral, {
    ref: product.ref,
    default_category: product.defaultCategories[0] ?? 0,
    price: saleElement?.price ?? '0',
    currency: 'id' in context.currency ? context.currency.id : 0,
    tax_rule: product.taxRuleId ?? 0,
    weight: saleElement?.weight ?? 0,
    visible: product.visible,
    brand_id: product.brandId ?? 0,
  });
  if (!parsed.success) {
    // The price, currency and rule already have their own problem when missing.
    const known = new Set([...problems.map((problem) => problem.field), ...('problem' in context.currency ? ['currency.id'] : [])]);
    problems.push(...problemsOf(parsed.issues, ([field]) => PRODUCT_COLUMNS[String(field)] ?? String(field)).filter((problem) => !known.has(problem.field)));
  }
  if (!parsed.success || problems.length || !dates) return { problems };
  normalized.push(...changedTexts({ table: 'product', row: product.id }, { ref: product.ref }, parsed.output, ['ref']));
  if (saleElement?.weight === null) normalized.push({ table: 'product_sale_elements', row: saleElement.id, column: 'weight', what: 'empty: 0', before: null, after: 0 });
  return { record: newProduct(parsed.output, { id: product.id, taxRuleId: parsed.output.tax_rule, i18n, ...dates }), normalized };
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

export function mapCustomer(customer: TheliaCustomer): Mapped<Customer> {
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
    lang_id: customer.langId ?? defaultLang.id,
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
  if (!parsed.success || problems.length || !dates) return { problems };
  const given = { firstname: customer.firstname, lastname: customer.lastname, email: customer.email, ...address };
  const normalized = [
    ...changedTexts({ table: 'customer', row: customer.id }, given, parsed.output, ['firstname', 'lastname', 'email']),
    ...changedTexts({ table: 'address', row: present(address, 'the default address').id }, given, parsed.output, ['zipcode', 'city', 'address1', 'address2', 'address3']),
    ...(customer.langId === null ? [{ table: 'customer', row: customer.id, column: 'lang_id', what: 'empty: the default language', before: null, after: defaultLang.id }] : []),
  ];
  return { record: newCustomer(parsed.output, { id: customer.id, passwordHash, ...dates }), normalized };
}
