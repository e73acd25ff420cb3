/**
 * The local search index (docs/lists.md): SQLite through Node's own `node:sqlite`, no dependency and
 * no server, in one file of the data dir (or in memory, for tests). A document is a row of JSON
 * (its values and folded texts, which filters and orders read) and one row per text and locale,
 * indexed twice by FTS5: by trigrams (a text that contains a term of three characters or more) and
 * by words (`any_word`). A term of one or two characters has no trigram: it is looked for with
 * `instr` in the folded texts, a scan of that kind's documents, fine at the size of a store on one
 * machine. Every answer is exact: what FTS finds is checked again with `instr` on the same row.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { FeedPosition } from '../db/feed.js';
import type { IndexWrite, SearchEngine } from '../db/lists/engine.js';
import { wordsOf, type FieldValue, type SearchAnswer, type SearchDocument, type SearchFilter, type SearchQuery } from '../db/lists/query.js';
import type { Position } from '../db/page.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS documents (kind TEXT NOT NULL, id INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS texts (rowid INTEGER PRIMARY KEY, kind TEXT NOT NULL, id INTEGER NOT NULL, field TEXT NOT NULL, locale TEXT NOT NULL, text TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS texts_of_document ON texts (kind, id);
  CREATE VIRTUAL TABLE IF NOT EXISTS text_trigrams USING fts5(text, content='texts', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
  CREATE VIRTUAL TABLE IF NOT EXISTS text_words USING fts5(text, content='texts', content_rowid='rowid', tokenize="unicode61 remove_diacritics 2 categories 'L* N*'");
  CREATE TRIGGER IF NOT EXISTS texts_added AFTER INSERT ON texts BEGIN
    INSERT INTO text_trigrams (rowid, text) VALUES (new.rowid, new.text);
    INSERT INTO text_words (rowid, text) VALUES (new.rowid, new.text);
  END;
  CREATE TRIGGER IF NOT EXISTS texts_removed AFTER DELETE ON texts BEGIN
    INSERT INTO text_trigrams (text_trigrams, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO text_words (text_words, rowid, text) VALUES ('delete', old.rowid, old.text);
  END;
`;

/**
 * The schema's version (SQLite's `user_version`): a file of an older one is emptied and made again,
 * and the index rebuilt from the table (it notes no position then). 1: words are runs of letters and
 * digits, as the query model splits them (`wordsOf`), not unicode61's default (which keeps private-use
 * characters in words).
 */
const SCHEMA_VERSION = 1;
const EMPTIED = `
  DROP TRIGGER IF EXISTS texts_added; DROP TRIGGER IF EXISTS texts_removed;
  DROP TABLE IF EXISTS text_trigrams; DROP TABLE IF EXISTS text_words;
  DROP TABLE IF EXISTS texts; DROP TABLE IF EXISTS documents; DROP TABLE IF EXISTS meta;
`;

/** A text's key in a document's JSON: its field, and its locale when it has one. */
const textKey = (field: string, locale: string) => (locale ? `${field}@${locale}` : field);
/** An FTS5 string: the term quoted, its quotes doubled. */
const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;
/** Characters, not UTF-16 units: what a trigram counts. */
const characters = (term: string) => [...term].length;

/** A text row as a query reads it: unlocalized, in its locale, or in the fallback when the record has no text in its locale. */
const READ_LOCALE = `(t.locale = '' OR t.locale = ? OR (t.locale = ? AND NOT EXISTS (SELECT 1 FROM texts o WHERE o.kind = t.kind AND o.id = t.id AND o.locale = ?)))`;

/** A condition of the query's WHERE clause, with its parameters. */
interface Clause {
  sql: string;
  params: SQLInputValue[];
}

export class SqliteSearchEngine implements SearchEngine {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  /** `path`: the index's file (created when missing), or `:memory:`. */
  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    const { user_version: version } = this.db.prepare('PRAGMA user_version').get() as { user_version: number };
    if (version !== SCHEMA_VERSION) this.db.exec(`BEGIN; ${EMPTIED} ${SCHEMA} PRAGMA user_version = ${SCHEMA_VERSION}; COMMIT;`);
    else this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async position(): Promise<FeedPosition | undefined> {
    const row = this.statement(`SELECT value FROM meta WHERE key = 'position'`).get() as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as FeedPosition) : undefined;
  }

  async clear(kinds: readonly string[]): Promise<void> {
    this.db.exec('BEGIN');
    this.statement('DELETE FROM meta').run();
    for (const kind of kinds) {
      this.statement('DELETE FROM texts WHERE kind = ?').run(kind);
      this.statement('DELETE FROM documents WHERE kind = ?').run(kind);
    }
    this.db.exec('COMMIT');
  }

  async write(writes: readonly IndexWrite[], position: FeedPosition | undefined): Promise<void> {
    this.db.exec('BEGIN');
    try {
      for (const { kind, put, remove } of writes) {
        for (const id of [...remove, ...put.map((document) => document.id)]) {
          this.statement('DELETE FROM texts WHERE kind = ? AND id = ?').run(kind, id);
          this.statement('DELETE FROM documents WHERE kind = ? AND id = ?').run(kind, id);
        }
        for (const document of put) this.insert(kind, document);
      }
      if (position) this.statement(`INSERT OR REPLACE INTO meta (key, value) VALUES ('position', ?)`).run(JSON.stringify(position));
      else this.statement(`DELETE FROM meta WHERE key = 'position'`).run();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private insert(kind: string, document: SearchDocument): void {
    const texts: Record<string, string> = {};
    const addText = this.statement('INSERT INTO texts (kind, id, field, locale, text) VALUES (?, ?, ?, ?, ?)');
    for (const [field, text] of Object.entries(document.texts)) {
      for (const [locale, value] of typeof text === 'string' ? [['', text] as const] : Object.entries(text)) {
        texts[textKey(field, locale)] = value;
        addText.run(kind, document.id, field, locale, value);
      }
    }
    this.statement('INSERT INTO documents (kind, id, body) VALUES (?, ?, ?)').run(kind, document.id, JSON.stringify({ v: document.values, t: texts }));
  }

  async query(query: SearchQuery): Promise<SearchAnswer> {
    const where = [{ sql: 'd.kind = ?', params: [query.kind] }, ...query.filters.map((filter) => this.clause(filter, query))];
    const sort = query.order.text ? this.textExpression(query.order.field, query) : this.valueExpression(query.order.field);
    const direction = query.order.reverse ? 'DESC' : 'ASC';
    const conditions = where.map((clause) => clause.sql).join(' AND ');
    const params = where.flatMap((clause) => clause.params);
    const [afterValue, afterId] = query.after ?? [];
    const after: Clause =
      afterValue !== undefined && afterId !== undefined
        ? { sql: ` AND (${sort} ${query.order.reverse ? '<' : '>'} ? OR (${sort} = ? AND d.id ${query.order.reverse ? '<' : '>'} ?))`, params: [afterValue, afterValue, afterId] }
        : { sql: '', params: [] };
    const rows = this.statement(`SELECT d.id AS id, ${sort} AS sortValue FROM documents d WHERE ${conditions}${after.sql} ORDER BY sortValue ${direction}, d.id ${direction} LIMIT ? OFFSET ?`).all(
      ...params,
      ...after.params,
      query.limit + 1,
      query.after ? 0 : query.offset,
    ) as { id: number; sortValue: FieldValue | null }[];
    const { total } = this.statement(`SELECT count(*) AS total FROM documents d WHERE ${conditions}`).get(...params) as { total: number };
    const page = rows.slice(0, query.limit);
    return {
      ids: page.map((row) => row.id),
      positions: page.map((row): Position => [row.sortValue ?? '', row.id]),
      total,
      more: rows.length > query.limit,
    };
  }

  private valueExpression(field: string): string {
    return field === 'id' ? 'd.id' : `json_extract(d.body, ${this.jsonPath('v', field)})`;
  }

  private textExpression(field: string, query: SearchQuery): string {
    // A record with texts in the locale has every field in it; else its row shows the fallback's.
    const paths = [textKey(field, query.locale), textKey(field, query.fallback), field].map((key) => `json_extract(d.body, ${this.jsonPath('t', key)})`);
    return `coalesce(${paths.join(', ')}, '')`;
  }

  /** A JSON path literal; names come from the declarations, and are quoted all the same. */
  private jsonPath(part: 'v' | 't', name: string): string {
    return `'$.${part}."${name.replaceAll("'", "''").replaceAll('"', '')}"'`;
  }

  private clause(filter: SearchFilter, query: SearchQuery): Clause {
    if (filter.kind === 'in') {
      const slots = filter.values.map(() => '?').join(', ');
      return { sql: `${this.valueExpression(filter.field)} ${filter.not ? 'NOT IN' : 'IN'} (${slots || 'NULL'})${filter.not && !slots ? ' OR 1' : ''}`, params: [...filter.values] };
    }
    if (filter.kind === 'range') {
      const bounds: Clause[] = [];
      if (filter.min !== undefined) bounds.push({ sql: `${this.valueExpression(filter.field)} >= ?`, params: [filter.min] });
      if (filter.max !== undefined) bounds.push({ sql: `${this.valueExpression(filter.field)} <= ?`, params: [filter.max] });
      return { sql: bounds.map((bound) => bound.sql).join(' AND ') || '1', params: bounds.flatMap((bound) => bound.params) };
    }
    // The documents of this kind with a text of those fields, in the query's locale (or one that has none), that…
    const fields = filter.fields.map(() => '?').join(', ');
    const texts = (from: string, condition: string, term: SQLInputValue): Clause => ({
      sql: `d.id IN (SELECT t.id FROM ${from} WHERE ${condition} AND t.kind = ? AND t.field IN (${fields}) AND ${READ_LOCALE})`,
      params: [term, query.kind, ...filter.fields, query.locale, query.fallback, query.locale],
    });
    if (filter.mode === 'equals') return texts('texts t', 't.text = ?', filter.term);
    if (filter.mode === 'any_word') {
      const words = wordsOf(filter.term);
      return words.length ? texts('text_words w JOIN texts t ON t.rowid = w.rowid', 'text_words MATCH ?', words.map(quoted).join(' OR ')) : { sql: '0', params: [] };
    }
    if (characters(filter.term) < 3) return texts('texts t', 'instr(t.text, ?) > 0', filter.term);
    const found = texts('text_trigrams g JOIN texts t ON t.rowid = g.rowid', 'text_trigrams MATCH ? AND instr(t.text, ?) > 0', quoted(filter.term));
    const [match, ...rest] = found.params;
    return { sql: found.sql, params: [match ?? quoted(filter.term), filter.term, ...rest] };
  }
}
