/**
 * What an import did: per kind of record, how many were read, imported, found unchanged and skipped,
 * and each skipped record with its Thelia id and the reasons. Printed at the end of a run, and
 * written as JSON with `--report`.
 */
import type { Outcome } from './destination.js';
import type { Problem } from './mapping.js';

export const KINDS = ['tax rule', 'product', 'customer'] as const;
export type Kind = (typeof KINDS)[number];

export interface Counts {
  read: number;
  imported: number;
  /** Already in the table, untouched since the import, and changed in the source: updated (`--update`). */
  updated: number;
  /** Already in the table with the source's content. */
  unchanged: number;
  /** Already in the table, changed through the API since the import: left as it is. */
  kept: number;
  /** Changed both in the source and through the API since the import: left as it is (`--update`). */
  conflict: number;
  skipped: number;
}

export interface ConflictRecord {
  kind: Kind;
  id: number;
  sourceUpdatedAt: string;
  tableUpdatedAt: string;
}

export interface SkippedRecord {
  kind: Kind;
  /** The record's id in Thelia (and in the API, once imported). */
  id: number;
  problems: Problem[];
}

export interface ImportReport {
  source: string;
  table: string;
  dryRun: boolean;
  startedAt: string;
  seconds: number;
  /** Records read per second, over the whole run. */
  recordsPerSecond: number;
  /** The process's peak resident memory. */
  peakMemoryMiB: number;
  counts: Record<Kind, Counts>;
  skipped: SkippedRecord[];
  conflicts: ConflictRecord[];
}

export class ReportBuilder {
  private readonly started = new Date();
  private readonly counts = Object.fromEntries(KINDS.map((kind) => [kind, { read: 0, imported: 0, updated: 0, unchanged: 0, kept: 0, conflict: 0, skipped: 0 }])) as Record<Kind, Counts>;
  private readonly skipped: SkippedRecord[] = [];
  private readonly conflicts: ConflictRecord[] = [];

  constructor(private readonly about: { source: string; table: string; dryRun: boolean }) {}

  add(kind: Kind, id: number, outcome: Outcome): void {
    const counts = this.counts[kind];
    counts.read++;
    counts[outcome.status]++;
    if (outcome.status === 'skipped') this.skipped.push({ kind, id, problems: outcome.problems });
    if (outcome.status === 'conflict') this.conflicts.push({ kind, id, sourceUpdatedAt: outcome.sourceUpdatedAt, tableUpdatedAt: outcome.tableUpdatedAt });
  }

  /** Whether the table does not hold the source as it is: records skipped or left as conflicts (exit 2). */
  get incomplete(): boolean {
    return this.skipped.length > 0 || this.conflicts.length > 0;
  }

  finish(): ImportReport {
    const seconds = (Date.now() - this.started.getTime()) / 1000;
    const read = KINDS.reduce((sum, kind) => sum + this.counts[kind].read, 0);
    return {
      ...this.about,
      startedAt: this.started.toISOString(),
      seconds: Math.round(seconds * 10) / 10,
      recordsPerSecond: Math.round(read / Math.max(seconds, 0.001)),
      peakMemoryMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      counts: this.counts,
      skipped: this.skipped,
      conflicts: this.conflicts,
    };
  }
}

const LISTED = 50;

/** The report as a person reads it at the end of a run. */
export function formatReport(report: ImportReport, reportFile?: string): string {
  const columns = ['read', 'imported', 'updated', 'unchanged', 'kept', 'conflict', 'skipped'] as const;
  const rows = [
    ['', 'read', report.dryRun ? 'to import' : 'imported', report.dryRun ? 'to update' : 'updated', 'unchanged', 'kept (changed through the API)', 'conflict', 'skipped'],
    ...KINDS.map((kind) => [`${kind}s`, ...columns.map((column) => String(report.counts[kind][column]))]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
  const lines = [
    `${report.dryRun ? 'Dry run (nothing written)' : 'Import'} from ${report.source} into ${report.table}: ${report.seconds} s, ${report.recordsPerSecond} records/s, peak memory ${report.peakMemoryMiB} MiB`,
    ...table,
  ];
  if (report.conflicts.length) {
    lines.push('', `Conflicts, changed in Thelia and through the API since the import, left as they are (${report.conflicts.length}):`);
    for (const record of report.conflicts.slice(0, LISTED)) lines.push(`  ${record.kind} ${record.id}: Thelia updated_at ${record.sourceUpdatedAt}, the table's UPDATE_DATE ${record.tableUpdatedAt}`);
    if (report.conflicts.length > LISTED) lines.push(`  … and ${report.conflicts.length - LISTED} more${reportFile ? ` (all of them in ${reportFile})` : ' (--report FILE lists all of them)'}`);
  }
  if (report.skipped.length) {
    lines.push('', `Skipped (${report.skipped.length}):`);
    for (const record of report.skipped.slice(0, LISTED)) {
      lines.push(`  ${record.kind} ${record.id}: ${record.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
    }
    if (report.skipped.length > LISTED) lines.push(`  … and ${report.skipped.length - LISTED} more${reportFile ? ` (all of them in ${reportFile})` : ' (--report FILE lists all of them)'}`);
  }
  return lines.join('\n');
}
