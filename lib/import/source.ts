/**
 * A Thelia 2.x database (MySQL/MariaDB) as the import reads it: SELECT only, inside one read-only
 * transaction with a consistent snapshot (so that batches read at different moments agree), in
 * batches of rows by ascending id with what each row needs from the other tables. Nothing is held
 * in memory beyond one batch. Table and column names are Thelia 2.4.5's schema (its `setup/thelia.sql`).
 * What each kind reads is declared in its resource's folder (`lib/<resource>/import.ts`); here are
 * the connection and what every kind's reading shares.
 */
import mysql from 'mysql2/promise';

/** A connection URL without its password, to show. */
export function describeSource(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href;
}

export type Row = mysql.RowDataPacket;
export type Rows = Row[];

/** Groups `rows` by the number in `column`. */
export function groupBy<T>(rows: Rows, column: string, map: (row: mysql.RowDataPacket) => T): Map<number, T[]> {
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
export const dateOf = (value: unknown): Date | null => (value instanceof Date && !Number.isNaN(value.getTime()) ? value : null);
export const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A catalog record's texts in one locale, as Thelia's `*_i18n` tables hold them (products', categories'). */
export interface TheliaCatalogTexts {
  locale: string;
  title: string | null;
  chapo: string | null;
  description: string | null;
  postscriptum: string | null;
}

/** A record's texts in one locale, as `*_i18n` holds them: the columns `fields` (each NULL or a string). */
export const textsOfRow =
  <F extends string>(fields: readonly F[]) =>
  (row: Row): { locale: string } & Record<F, string | null> =>
    ({ locale: String(row.locale), ...Object.fromEntries(fields.map((field) => [field, row[field] as string | null])) }) as { locale: string } & Record<F, string | null>;

/** A product's or a category's texts in one locale, as `*_i18n` holds them. */
export const catalogueTexts = (row: Row): TheliaCatalogTexts => textsOfRow(['title', 'chapo', 'description', 'postscriptum'] as const)(row);

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

  /** A query of the snapshot: SELECT only. */
  async select(sql: string, values: unknown[] = []): Promise<Rows> {
    const [rows] = await this.db.query<Rows>(sql, values);
    return rows;
  }

  /** How many rows a table has (for the progress), and its highest id (0 when empty). */
  async extent(table: string): Promise<{ count: number; maxId: number }> {
    if (!(await this.has(table))) return { count: 0, maxId: 0 };
    const [row] = await this.select(`SELECT COUNT(*) AS n, MAX(id) AS id FROM \`${table}\``);
    return { count: Number(row?.n ?? 0), maxId: Number(row?.id ?? 0) };
  }

  /** Ids of one table in batches, ascending, each batch read after the previous one's last id. */
  async *idBatches(table: string, columns: string, size: number): AsyncGenerator<Rows> {
    let after = 0;
    for (;;) {
      const rows = await this.select(`SELECT ${columns} FROM \`${table}\` WHERE id > ? ORDER BY id LIMIT ?`, [after, size]);
      if (rows.length === 0) return;
      yield rows;
      after = Number(rows.at(-1)?.id);
    }
  }

  /** Whether the database has a table: a store's copy made for an earlier import may have no categories. */
  async has(table: string): Promise<boolean> {
    return (await this.select('SHOW TABLES LIKE ?', [table])).length > 0;
  }
}

/** A record's row and its texts per locale. */
export interface RowWithTexts<F extends string> {
  id: number;
  row: Row;
  texts: ({ locale: string } & Record<F, string | null>)[];
}

/**
 * A table's rows (`columns`, `id` among them) with their texts per locale (`<table>_i18n`'s columns
 * `fields`), in batches by id; none when the source has not the table (a store's copy made for an
 * earlier import), no texts when it has not the texts' table.
 */
export async function* rowsWithTexts<F extends string>(source: TheliaSource, table: string, columns: string, fields: readonly F[], size: number): AsyncGenerator<RowWithTexts<F>[]> {
  if (!(await source.has(table))) return;
  const hasTexts = await source.has(`${table}_i18n`);
  for await (const rows of source.idBatches(table, columns, size)) {
    const ids = rows.map((row) => Number(row.id));
    const i18n = hasTexts ? await source.select(`SELECT id, locale, ${fields.join(', ')} FROM \`${table}_i18n\` WHERE id IN (?) ORDER BY id, locale`, [ids]) : [];
    const textsOf = groupBy(i18n, 'id', textsOfRow(fields));
    yield rows.map((row) => ({ id: Number(row.id), row, texts: textsOf.get(Number(row.id)) ?? [] }));
  }
}
