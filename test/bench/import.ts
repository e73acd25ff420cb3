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
import { runImport } from '../support/import-cli.js';
import { startMariaDb } from '../support/mariadb.js';
import { phpBcrypt } from '../support/thelia-store.js';
import { THELIA_TABLES, insertRows, type TheliaRow } from '../support/thelia-tables.js';

const RECORDS = Number(process.env.BENCH_IMPORT_RECORDS ?? 10_000);

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function store(): Record<string, TheliaRow[]> {
  const hash = phpBcrypt('bench password');
  const created = '2020-01-01 00:00:00';
  return {
    currency: [{ id: 1, code: 'EUR', symbol: '€', rate: 1, by_default: 1 }],
    tax_rule: [{ id: 1, is_default: 1, created_at: created, updated_at: null }],
    tax_rule_i18n: [{ id: 1, locale: 'en_US', title: 'VAT', description: null }],
    tax_rule_country: [{ id: 1, tax_rule_id: 1, country_id: 64, state_id: null, tax_id: 1, position: 1 }],
    product: range(RECORDS).map((id) => ({ id, ref: `REF-${id}`, tax_rule_id: 1, visible: id % 2, brand_id: id % 7 || null, created_at: created, updated_at: created })),
    product_i18n: range(RECORDS).flatMap((id) => [
      { id, locale: 'en_US', title: `Product ${id}`, chapo: 'A short text', description: 'A longer description of the product, as shops write them.', postscriptum: null },
      { id, locale: 'fr_FR', title: `Produit ${id}`, chapo: 'Un texte court', description: 'Une description plus longue du produit.', postscriptum: null },
    ]),
    product_sale_elements: range(RECORDS).map((id) => ({ id, product_id: id, ref: `PSE-${id}`, quantity: 10, weight: (id % 50) / 10, is_default: 1 })),
    product_price: range(RECORDS).map((id) => ({ product_sale_elements_id: id, currency_id: 1, price: `${id % 500}.99`, promo_price: '0', from_default_currency: 1 })),
    product_category: range(RECORDS).map((id) => ({ product_id: id, category_id: (id % 20) + 1, default_category: 1, position: 1 })),
    customer: range(RECORDS).map((id) => ({
      id,
      title_id: (id % 3) + 1,
      lang_id: id % 2 ? 1 : null,
      firstname: `First${id}`,
      lastname: `Last${id}`,
      email: `customer${id}@example.com`,
      password: hash,
      algo: 'PASSWORD_BCRYPT',
      created_at: created,
      updated_at: created,
    })),
    address: range(RECORDS).map((id) => ({
      id,
      customer_id: id,
      title_id: 1,
      firstname: `First${id}`,
      lastname: `Last${id}`,
      address1: `${id} rue de la Paix`,
      address2: '',
      address3: '',
      zipcode: '75002',
      city: 'Paris',
      country_id: 64,
      is_default: 1,
    })),
  };
}

/** Imports into the table `bench-import` of the DynamoDB Local at `endpoint` (in memory). */
export async function importBenchmark(endpoint: string): Promise<void> {
  const mariadb = await startMariaDb();
  try {
    const url = await mariadb.createDatabase('bench', THELIA_TABLES);
    for (const [table, rows] of Object.entries(store())) await insertRows(mariadb.admin, table, rows);
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
