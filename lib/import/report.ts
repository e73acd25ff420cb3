/**
 * What an import did (docs/moving-from-thelia.md): per kind of record, how many were read and what became of each,
 * every record named under its outcome, the reasons of the skipped, conflicting and missing ones, and
 * every value the import changed on its way in. Printed at the end of a run, and written as JSON with
 * `--report`.
 */
import { present } from '../present.js';
import type { Outcome } from './kind.js';
import type { Normalization, Problem } from './mapping.js';

/** A kind of record as the report names it ('tax rule'), and in the plural. */
export interface KindName {
  kind: string;
  plural: string;
}

export const OUTCOMES = ['imported', 'updated', 'unchanged', 'kept', 'conflict', 'missing', 'deleted', 'skipped'] as const;
export type OutcomeName = (typeof OUTCOMES)[number];

/**
 * Per outcome: imported (new in the table); updated (`--update`: untouched since the import, changed
 * in the source); unchanged (the source's content); kept (changed through the API since the import,
 * or in the source without `--update`: left as it is); conflict (changed on both sides, `--update`);
 * missing (the import's record, whose source row is gone: listed); deleted (the same, deleted with
 * `--delete-missing`); skipped (not representable, or its id or unique value is another record's).
 * `read` counts the source's rows; missing and deleted records were not read, they were not there.
 */
export type Counts = { read: number } & Record<OutcomeName, number>;

/** A record changed in the source since the import, and left as the table has it: both dates. */
export interface DatedRecord {
  kind: string;
  id: number;
  sourceUpdatedAt: string;
  tableUpdatedAt: string;
}

export interface SkippedRecord {
  kind: string;
  /** The record's id in Thelia (and in the API, once imported). */
  id: number;
  problems: Problem[];
}

export interface MissingRecord {
  kind: string;
  id: number;
  /** Why it is still in the table. */
  reason: string;
}

/** A value of a record the table holds as the import wrote it, which differs from the source's. */
export type NormalizedValue = { kind: string; id: number } & Normalization;

export interface ImportReport {
  source: string;
  table: string;
  dryRun: boolean;
  update: boolean;
  deleteMissing: boolean;
  startedAt: string;
  seconds: number;
  /** Records read per second, over the whole run. */
  recordsPerSecond: number;
  /** The process's peak resident memory. */
  peakMemoryMiB: number;
  /** The kinds the run brought, in its order. */
  kinds: KindName[];
  counts: Record<string, Counts>;
  /** Every record's id under its outcome, ascending. */
  records: Record<string, Record<OutcomeName, number[]>>;
  conflicts: DatedRecord[];
  /** Kept records whose source changed since the import: a run without --update does not apply it. */
  notApplied: DatedRecord[];
  missing: MissingRecord[];
  skipped: SkippedRecord[];
  normalized: NormalizedValue[];
}

/** The outcomes of records the source no longer has: not among the rows read. */
const NOT_READ: ReadonlySet<OutcomeName> = new Set(['missing', 'deleted']);

/** The outcomes after which the table holds the import's form of the source's values. */
const HOLDS_SOURCE: ReadonlySet<OutcomeName> = new Set(['imported', 'updated', 'unchanged']);

const perOutcome = <T>(make: () => T) => Object.fromEntries(OUTCOMES.map((outcome) => [outcome, make()])) as Record<OutcomeName, T>;

export class ReportBuilder {
  private readonly started = new Date();
  private readonly records: Record<string, Record<OutcomeName, number[]>>;
  private readonly conflicts: DatedRecord[] = [];
  private readonly notApplied: DatedRecord[] = [];
  private readonly missing: MissingRecord[] = [];
  private readonly skipped: SkippedRecord[] = [];
  private readonly normalized: NormalizedValue[] = [];

  constructor(
    private readonly about: { source: string; table: string; dryRun: boolean; update: boolean; deleteMissing: boolean },
    private readonly kinds: readonly KindName[],
  ) {
    this.records = Object.fromEntries(kinds.map(({ kind }) => [kind, perOutcome((): number[] => [])]));
  }

  /** A record's outcome, with the values its mapping changed (reported when the table holds them). */
  add(kind: string, id: number, outcome: Outcome, normalized: readonly Normalization[] = []): void {
    present(this.records[kind], `the report's kind ${kind}`)[outcome.status].push(id);
    if (outcome.status === 'skipped') this.skipped.push({ kind, id, problems: outcome.problems });
    if (outcome.status === 'conflict') this.conflicts.push({ kind, id, sourceUpdatedAt: outcome.sourceUpdatedAt, tableUpdatedAt: outcome.tableUpdatedAt });
    if (outcome.status === 'kept' && outcome.sourceUpdatedAt && outcome.tableUpdatedAt)
      this.notApplied.push({ kind, id, sourceUpdatedAt: outcome.sourceUpdatedAt, tableUpdatedAt: outcome.tableUpdatedAt });
    if (outcome.status === 'missing') this.missing.push({ kind, id, reason: outcome.reason });
    if (HOLDS_SOURCE.has(outcome.status)) this.normalized.push(...normalized.map((value) => ({ kind, id, ...value })));
  }

  /**
   * Whether the table does not hold the source as it is (exit 2): records skipped, left as conflicts,
   * missing in the source, or changed there and not applied (without --update).
   */
  get incomplete(): boolean {
    return this.skipped.length > 0 || this.conflicts.length > 0 || this.notApplied.length > 0 || this.missing.length > 0;
  }

  finish(): ImportReport {
    const seconds = (Date.now() - this.started.getTime()) / 1000;
    const counts: Record<string, Counts> = {};
    for (const [kind, records] of Object.entries(this.records)) {
      for (const ids of Object.values(records)) ids.sort((a, b) => a - b);
      const outcomes = perOutcome((): number => 0);
      for (const outcome of OUTCOMES) outcomes[outcome] = records[outcome].length;
      counts[kind] = { ...outcomes, read: OUTCOMES.filter((outcome) => !NOT_READ.has(outcome)).reduce((sum, outcome) => sum + outcomes[outcome], 0) };
    }
    const read = Object.values(counts).reduce((sum, kind) => sum + kind.read, 0);
    return {
      ...this.about,
      startedAt: this.started.toISOString(),
      seconds: Math.round(seconds * 10) / 10,
      recordsPerSecond: Math.round(read / Math.max(seconds, 0.001)),
      peakMemoryMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      kinds: [...this.kinds],
      counts,
      records: this.records,
      conflicts: this.conflicts,
      notApplied: this.notApplied,
      missing: this.missing,
      skipped: this.skipped,
      normalized: this.normalized,
    };
  }
}

/** Ascending ids as ranges: 1, 3–5, 9. */
export function idRanges(ids: readonly number[]): string {
  const ranges: string[] = [];
  let start: number | undefined;
  ids.forEach((id, i) => {
    start ??= id;
    const next = ids[i + 1];
    if (next === id + 1) return;
    ranges.push(start === id ? String(id) : `${start}–${id}`);
    start = undefined;
  });
  return ranges.join(', ');
}

const HEADINGS: Record<OutcomeName, [run: string, dryRun: string]> = {
  imported: ['imported', 'to import'],
  updated: ['updated', 'to update'],
  unchanged: ['unchanged', 'unchanged'],
  kept: ['kept', 'kept'],
  conflict: ['conflict', 'conflict'],
  missing: ['missing', 'missing'],
  deleted: ['deleted', 'to delete'],
  skipped: ['skipped', 'skipped'],
};

/** A value as JSON, with what a reader cannot see spelled out: spaces other than U+0020, format characters, combining marks. */
const shown = (value: unknown): string => JSON.stringify(value).replace(/(?! )[\p{Z}\p{Cf}\p{M}]/gu, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);

/** Where a value came from in Thelia, named as skipped records' columns are: `address.city (id 2)`, `product_i18n.title (id 10, fr_FR)`. */
const placeOf = (value: Normalization): string => `${value.table}.${value.column} (id ${[value.row, value.locale].filter((part) => part !== undefined).join(', ')})`;

/** The report as a person reads it at the end of a run: nothing in the JSON is left out. */
export function formatReport(report: ImportReport): string {
  const heading = (outcome: OutcomeName) => HEADINGS[outcome][report.dryRun ? 1 : 0];
  const countsOf = (kind: string) => present(report.counts[kind], `the counts of ${kind}`);
  const rows = [['', 'read', ...OUTCOMES.map(heading)], ...report.kinds.map(({ kind, plural }) => [plural, ...(['read', ...OUTCOMES] as const).map((column) => String(countsOf(kind)[column]))])];
  const widths = rows.reduce((widest: number[], row) => row.map((cell, column) => Math.max(widest[column] ?? 0, cell.length)), []);
  const table = rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '));
  const flags = [report.update && '--update', report.deleteMissing && '--delete-missing'].filter(Boolean).join(' ');
  const lines = [
    `${report.dryRun ? 'Dry run (nothing written)' : 'Import'}${flags ? ` (${flags})` : ''} from ${report.source} into ${report.table}: ${report.seconds} s, ${report.recordsPerSecond} records/s, peak memory ${report.peakMemoryMiB} MiB`,
    ...table,
    '',
    'Records (Thelia ids):',
  ];
  for (const { kind, plural } of report.kinds) {
    for (const outcome of OUTCOMES) {
      const ids = report.records[kind]?.[outcome] ?? [];
      if (ids.length) lines.push(`  ${plural} ${heading(outcome)}: ${idRanges(ids)}`);
    }
  }
  const section = <T>(title: string, items: readonly T[], line: (item: T) => string) => {
    if (items.length) lines.push('', `${title} (${items.length}):`, ...items.map((item) => `  ${line(item)}`));
  };
  section(
    'Conflicts, changed in Thelia and through the API since the import, left as they are',
    report.conflicts,
    (r) => `${r.kind} ${r.id}: Thelia updated_at ${r.sourceUpdatedAt}, the table's UPDATE_DATE ${r.tableUpdatedAt}`,
  );
  section(
    'Changed in Thelia since the import, not applied (--update applies those nobody changed through the API)',
    report.notApplied,
    (r) => `${r.kind} ${r.id}: Thelia updated_at ${r.sourceUpdatedAt}, the table's UPDATE_DATE ${r.tableUpdatedAt}`,
  );
  section('Missing in Thelia, imported earlier', report.missing, (r) => `${r.kind} ${r.id}: ${r.reason}`);
  section('Skipped', report.skipped, (r) => `${r.kind} ${r.id}: ${r.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  section('Values changed on the way in', report.normalized, (v) => `${v.kind} ${v.id}: ${placeOf(v)}: ${v.what}, ${shown(v.before)} → ${shown(v.after)}`);
  return lines.join('\n');
}
