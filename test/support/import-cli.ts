/** `npm run import`, as a user runs it, against this file's table (DYNAMODB_ENDPOINT and STORE_TABLE_NAME). */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Counts, ImportReport as AnyStoreReport, OutcomeName } from '../../lib/import/report.js';

/** The kinds this store's import brings (each resource's lib/<module>/import.ts). */
type StoreKind = 'tax rule' | 'category' | 'product' | 'customer';
/** The --report file of this store's import: a count and the records of each of its kinds. */
export type ImportReport = AnyStoreReport & { counts: Record<StoreKind, Counts>; records: Record<StoreKind, Record<OutcomeName, number[]>> };

export interface ImportRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The --report file's JSON, when the run wrote one. */
  report: ImportReport | undefined;
}

export interface RunningImport {
  process: ChildProcess;
  /** What it has written to stderr (its progress) so far. */
  progress(): string;
  finished: Promise<ImportRun>;
}

export function startImport(args: readonly string[], env: Record<string, string> = {}): RunningImport {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-api-import-'));
  const reportFile = path.join(dir, 'report.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/import.ts', ...args, '--report', reportFile], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<number | null>((resolve) => child.once('close', resolve)).then((status) => {
    let report: ImportReport | undefined;
    try {
      report = JSON.parse(readFileSync(reportFile, 'utf8')) as ImportReport;
    } catch {
      report = undefined;
    }
    rmSync(dir, { recursive: true, force: true });
    return { status, stdout, stderr, report };
  });
  return { process: child, progress: () => stderr, finished };
}

export const runImport = (args: readonly string[], env: Record<string, string> = {}): Promise<ImportRun> => startImport(args, env).finished;

/** The fields each skipped record of a kind is blamed for, by Thelia id. */
export function skippedFields(report: ImportReport, kind: string): Record<number, string[]> {
  return Object.fromEntries(report.skipped.filter((s) => s.kind === kind).map((s) => [s.id, s.problems.map((p) => p.field)]));
}
