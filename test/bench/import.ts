/**
 * The Thelia import's speed and memory (issue: "10 000 customers + 10 000 products"): a store of
 * BENCH_IMPORT_RECORDS customers and as many products (each with its default address, or its texts
 * in two locales, default sale element, price and category) in a real MariaDB, imported by
 * `npm run import` into an in-memory DynamoDB Local; then the same import again (all unchanged); then,
 * with a tenth of the products edited and a hundredth of the customers deleted in the source, an
 * `--update --delete-missing` run.
 * Records per second and peak memory are the import process's own, from its --report.
 * BENCH_IMPORT_HEAP_MB caps the import's heap (--max-old-space-size): that it still completes shows
 * that its memory does not grow with the store (V8 otherwise grows its heap before collecting).
 */
import { generatedStore } from '../support/generated-store.js';
import { runImport } from '../support/import-cli.js';
import { startMariaDb } from '../support/mariadb.js';
import { THELIA_TABLES, insertRows } from '../support/thelia-tables.js';

const RECORDS = Number(process.env.BENCH_IMPORT_RECORDS ?? 10_000);

/** Imports into the table `bench-import` of the DynamoDB Local at `endpoint` (in memory). */
export async function importBenchmark(endpoint: string): Promise<void> {
  const mariadb = await startMariaDb();
  try {
    const url = await mariadb.createDatabase('bench', THELIA_TABLES);
    for (const [table, rows] of Object.entries(generatedStore(RECORDS))) await insertRows(mariadb.admin, table, rows);
    const heap = process.env.BENCH_IMPORT_HEAP_MB;
    const env = { DYNAMODB_ENDPOINT: endpoint, STORE_TABLE_NAME: 'bench-import', ...(heap ? { NODE_OPTIONS: `--max-old-space-size=${heap}` } : {}) };
    process.env.STORE_TABLE_NAME = env.STORE_TABLE_NAME;
    const { setUpTable } = await import('../../lib/local/setup.js');
    await setUpTable();

    console.log(`\nThelia import: ${RECORDS} customers + ${RECORDS} products (+1 tax rule) from MariaDB into DynamoDB Local (in memory)${heap ? `, heap capped at ${heap} MB` : ''}`);
    console.log('run'.padEnd(34), 'exit'.padStart(5), 'seconds'.padStart(8), 'records/s'.padStart(10), 'peak MiB'.padStart(9), '  imported/updated/unchanged/deleted/skipped');
    const runs: [string, string[], (() => Promise<unknown>)?][] = [
      ['first (writes everything)', []],
      ['second (all unchanged)', []],
      // A store edited in Thelia meanwhile: a tenth of the products renamed, a hundredth of the customers gone.
      [
        '--update --delete-missing (10%/1%)',
        ['--update', '--delete-missing'],
        async () => {
          await mariadb.admin.query("UPDATE product_i18n SET title = CONCAT(title, ' (new)') WHERE id % 10 = 0 AND locale = 'en_US'");
          await mariadb.admin.query("UPDATE product SET updated_at = '2024-01-01 00:00:00' WHERE id % 10 = 0");
          await mariadb.admin.query('DELETE FROM customer WHERE id % 100 = 0');
        },
      ],
    ];
    for (const [run, flags, before] of runs) {
      await before?.();
      const result = await runImport(['--from', url, ...flags], env);
      const report = result.report;
      if (!report) throw new Error(`the import wrote no report: ${result.stderr}`);
      const totals = (['imported', 'updated', 'unchanged', 'deleted', 'skipped'] as const).map((what) => Object.values(report.counts).reduce((sum, counts) => sum + counts[what], 0));
      console.log(
        run.padEnd(34),
        String(result.status).padStart(5),
        report.seconds.toFixed(1).padStart(8),
        String(report.recordsPerSecond).padStart(10),
        String(report.peakMemoryMiB).padStart(9),
        `  ${totals.join('/')}`,
      );
    }
  } finally {
    await mariadb.stop();
  }
}
