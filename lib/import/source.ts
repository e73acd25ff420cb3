/**
 * A Thelia 2.x database (MySQL/MariaDB) as the import reads it: SELECT only, inside one read-only
 * transaction with a consistent snapshot (so that batches read at different moments agree), in
 * batches of rows by ascending id with what each row needs from the other tables. Nothing is held
 * in memory beyond one batch. Table and column names are Thelia 2.4's (shared/thelia).
 */
import { present } from '../present.js';
import mysql from 'mysql2/promise';

/** A connection URL without its password, to show. */
export function describeSource(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href;
}

export interface TheliaTaxRule {
  id: number;
  isDefault: number;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: { locale: string; title: string | null; description: string | null }[];
  /** One row per (country, state, tax), with the tax's position in that country. */
  countryTaxes: { countryId: number; stateId: number | null; taxId: number; position: number }[];
}

export interface TheliaProduct {
  id: number;
  ref: string;
  visible: number;
  brandId: number | null;
  taxRuleId: number | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: { locale: string; title: string | null; chapo: string | null; description: string | null; postscriptum: string | null }[];
  /** The default sale elements (`is_default = 1`), each with its price in the default currency (null when it has none). */
  defaultSaleElements: { id: number; weight: number | null; price: string | null }[];
  /** The categories marked `default_category = 1`. */
  defaultCategories: number[];
}

export interface TheliaCategory {
  id: number;
  /** 0 for the root. */
  parent: number;
  visible: number;
  position: number;
  createdAt: Date | null;
  updatedAt: Date | null;
  i18n: { locale: string; title: string | null; chapo: string | null; description: string | null; postscriptum: string | null }[];
}

export interface TheliaCustomer {
  id: number;
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

export type SourceTable = 'tax_rule' | 'category' | 'product' | 'customer';

type Rows = mysql.RowDataPacket[];

/** Groups `rows` by the number in `column`. */
function groupBy<T>(rows: Rows, column: string, map: (row: mysql.RowDataPacket) => T): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const id = Number(row[column]);
    const group = groups.get(id) ?? [];
    group.push(map(row));
    groups.set(id, group);
  }
  return groups;
}

/** A DATETIME as read: null when empty or a MySQL "zero date". */
const dateOf = (value: unknown): Date | null => (value instanceof Date && !Number.isNaN(value.getTime()) ? value : null);
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A product's or a category's texts in one locale, as `*_i18n` holds them. */
const catalogueTexts = (row: mysql.RowDataPacket): TheliaProduct['i18n'][number] => ({
  locale: String(row.locale),
  title: row.title as string | null,
  chapo: row.chapo as string | null,
  description: row.description as string | null,
  postscriptum: row.postscriptum as string | null,
});

export class TheliaSource {
  private constructor(private readonly db: mysql.Connection) {}

  /** Connects and opens the read-only snapshot. `timezone` is the zone Thelia's DATETIMEs are in ('Z', '+02:00', 'local'). */
  static async open(url: URL, options: { timezone: string }): Promise<TheliaSource> {
    if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') throw new Error(`--from must be a mysql:// URL, not ${url.protocol}//…`);
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (!database) throw new Error('--from must name the database: mysql://user:password@host:port/database');
    const db = await mysql.createConnection({
      host: url.hostname || '127.0.0.1',
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database,
      charset: 'utf8mb4',
      timezone: options.timezone,
      // DECIMAL prices stay exact strings.
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    await db.query('SET SESSION TRANSACTION READ ONLY');
    await db.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    return new TheliaSource(db);
  }

  async close(): Promise<void> {
    await this.db.query('COMMIT').catch(() => undefined);
    await this.db.end();
  }

  private async select(sql: string, values: unknown[] = []): Promise<Rows> {
    const [rows] = await this.db.query<Rows>(sql, values);
    return rows;
  }

  /** How many rows a table has (for the progress), and its highest id (0 when empty). */
  async extent(table: SourceTable): Promise<{ count: number; maxId: number }> {
    if (table === 'category' && !(await this.has(table))) return { count: 0, maxId: 0 };
    const [row] = await this.select(`SELECT COUNT(*) AS n, MAX(id) AS id FROM \`${table}\``);
    return { count: Number(row?.n ?? 0), maxId: Number(row?.id ?? 0) };
  }

  /** The shop's default currencies (`by_default = 1`): one in a sound store. */
  async defaultCurrencies(): Promise<number[]> {
    return (await this.select('SELECT id FROM currency WHERE by_default = 1 ORDER BY id')).map((row) => Number(row.id));
  }

  /** Ids of one table in batches, ascending, each batch read after the previous one's last id. */
  private async *idBatches(table: SourceTable, columns: string, size: number): AsyncGenerator<Rows> {
    let after = 0;
    for (;;) {
      const rows = await this.select(`SELECT ${columns} FROM \`${table}\` WHERE id > ? ORDER BY id LIMIT ?`, [after, size]);
      if (rows.length === 0) return;
      yield rows;
      after = Number(rows.at(-1)?.id);
    }
  }

  async *taxRules(size: number): AsyncGenerator<TheliaTaxRule[]> {
    for await (const rules of this.idBatches('tax_rule', 'id, is_default, created_at, updated_at', size)) {
      const ids = rules.map((r) => Number(r.id));
      const [i18n, countryTaxes] = await Promise.all([
        this.select('SELECT id, locale, title, description FROM tax_rule_i18n WHERE id IN (?) ORDER BY id, locale', [ids]),
        this.select('SELECT tax_rule_id, country_id, state_id, tax_id, position FROM tax_rule_country WHERE tax_rule_id IN (?) ORDER BY tax_rule_id, country_id, position, id', [ids]),
      ]);
      const textsOf = groupBy(i18n, 'id', (r) => ({ locale: String(r.locale), title: r.title as string | null, description: r.description as string | null }));
      const taxesOf = groupBy(countryTaxes, 'tax_rule_id', (r) => ({
        countryId: Number(r.country_id),
        stateId: numberOrNull(r.state_id),
        taxId: Number(r.tax_id),
        position: Number(r.position),
      }));
      yield rules.map((r) => ({
        id: Number(r.id),
        isDefault: Number(r.is_default),
        createdAt: dateOf(r.created_at),
        updatedAt: dateOf(r.updated_at),
        i18n: textsOf.get(Number(r.id)) ?? [],
        countryTaxes: taxesOf.get(Number(r.id)) ?? [],
      }));
    }
  }

  /** Products with their texts, default sale elements (priced in `currencyId`) and default categories. */
  async *products(size: number, currencyId: number | undefined): AsyncGenerator<TheliaProduct[]> {
    for await (const products of this.idBatches('product', 'id, ref, visible, brand_id, tax_rule_id, created_at, updated_at', size)) {
      const ids = products.map((p) => Number(p.id));
      const [i18n, saleElements, categories] = await Promise.all([
        this.select('SELECT id, locale, title, chapo, description, postscriptum FROM product_i18n WHERE id IN (?) ORDER BY id, locale', [ids]),
        this.select(
          `SELECT pse.product_id, pse.id, pse.weight, pp.price
             FROM product_sale_elements pse
             LEFT JOIN product_price pp ON pp.product_sale_elements_id = pse.id AND pp.currency_id = ?
            WHERE pse.product_id IN (?) AND pse.is_default = 1
            ORDER BY pse.product_id, pse.id`,
          [currencyId ?? 0, ids],
        ),
        this.select('SELECT product_id, category_id FROM product_category WHERE product_id IN (?) AND default_category = 1 ORDER BY product_id, category_id', [ids]),
      ]);
      const textsOf = groupBy(i18n, 'id', catalogueTexts);
      const saleElementsOf = groupBy(saleElements, 'product_id', (r) => ({
        id: Number(r.id),
        weight: numberOrNull(r.weight),
        price: r.price === null ? null : String(r.price),
      }));
      const categoriesOf = groupBy(categories, 'product_id', (r) => Number(r.category_id));
      yield products.map((p) => ({
        id: Number(p.id),
        ref: String(p.ref),
        visible: Number(p.visible),
        brandId: numberOrNull(p.brand_id),
        taxRuleId: numberOrNull(p.tax_rule_id),
        createdAt: dateOf(p.created_at),
        updatedAt: dateOf(p.updated_at),
        i18n: textsOf.get(Number(p.id)) ?? [],
        defaultSaleElements: saleElementsOf.get(Number(p.id)) ?? [],
        defaultCategories: categoriesOf.get(Number(p.id)) ?? [],
      }));
    }
  }

  /** Whether the database has a table: a store's copy made for an earlier import may have no categories. */
  private async has(table: string): Promise<boolean> {
    return (await this.select('SHOW TABLES LIKE ?', [table])).length > 0;
  }

  /**
   * Categories with their texts, every parent before its children (the order a tree is walked from
   * its root, by position), and last, by id, those no walk from the root reaches (a parent that is
   * not there, a loop), which the mapping refuses. Only the ids and parents are read whole.
   */
  async *categories(size: number): AsyncGenerator<TheliaCategory[]> {
    if (!(await this.has('category'))) return;
    const tree = await this.select('SELECT id, parent FROM category ORDER BY position, id');
    const children = groupBy(tree, 'parent', (row) => Number(row.id));
    const ordered: number[] = [];
    for (let queue = [0], parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
      const walked = (children.get(parent) ?? []).filter((child) => child !== 0);
      ordered.push(...walked);
      queue.push(...walked);
    }
    const reached = new Set(ordered);
    ordered.push(
      ...tree
        .map((row) => Number(row.id))
        .filter((id) => !reached.has(id))
        .sort((a, b) => a - b),
    );
    const hasTexts = await this.has('category_i18n');
    for (let i = 0; i < ordered.length; i += size) {
      const ids = ordered.slice(i, i + size);
      const [rows, i18n] = await Promise.all([
        this.select('SELECT id, parent, visible, position, created_at, updated_at FROM category WHERE id IN (?)', [ids]),
        hasTexts ? this.select('SELECT id, locale, title, chapo, description, postscriptum FROM category_i18n WHERE id IN (?) ORDER BY id, locale', [ids]) : [],
      ]);
      const byId = new Map(rows.map((row) => [Number(row.id), row]));
      const textsOf = groupBy(i18n, 'id', catalogueTexts);
      yield ids.map((id) => {
        const row = present(byId.get(id), `category ${id}, read by its id`);
        return {
          id,
          parent: Number(row.parent),
          visible: Number(row.visible),
          position: Number(row.position),
          createdAt: dateOf(row.created_at),
          updatedAt: dateOf(row.updated_at),
          i18n: textsOf.get(id) ?? [],
        };
      });
    }
  }

  /** Customers with their default addresses. */
  async *customers(size: number): AsyncGenerator<TheliaCustomer[]> {
    const columns = 'id, title_id, lang_id, firstname, lastname, email, password, algo, created_at, updated_at';
    for await (const customers of this.idBatches('customer', columns, size)) {
      const ids = customers.map((c) => Number(c.id));
      const addresses = await this.select(
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
}
