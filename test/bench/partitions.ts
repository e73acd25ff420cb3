/**
 * BENCH_ONLY=partitions: how a store's product writes spread over the index partitions
 * (docs/design.md, "Ceilings on DynamoDB"). A Thelia store of BENCH_PARTITION_PRODUCTS products
 * (100 000 by default; each with its texts in two locales, default sale element, price and category)
 * is imported by `npm run import` into an in-memory DynamoDB Local; its rate is the import's own
 * (--report). Then every item the import left is read back, and each global secondary index entry it
 * makes is counted on its partition (the index's partition key value), with the write units DynamoDB
 * charges for it (one a KB of the entry: every index projects the whole item).
 *
 * Per index, it prints the hottest partition: its entries per product imported and its write units a
 * second at the import's rate, against DynamoDB's 1 000 units a second per partition, and the import
 * rate (products a second) at which that partition would reach them: the index's ceiling for product
 * writes; and the same with the shards of each list merged (a key's `#S<n>` dropped), as the keys
 * were before the lists were sharded. Index entries are written once per item put here (a fresh
 * import: an `--update` rewrites them alike).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { itemBytes } from '../../lib/db/item-size.js';
import { type IndexName, table } from '../../lib/db/table.js';
import { generatedStore } from '../support/generated-store.js';
import { runImport } from '../support/import-cli.js';
import { startMariaDb } from '../support/mariadb.js';
import { THELIA_TABLES, insertRows } from '../support/thelia-tables.js';

const PRODUCTS = Number(process.env.BENCH_PARTITION_PRODUCTS ?? 100_000);
const TABLE = 'bench-partitions';
/** DynamoDB's write rate of one partition (developer guide, "Partitions and data distribution"). */
const PARTITION_UNITS_PER_SECOND = 1_000;
const SCAN_SEGMENTS = 4;

interface Partition {
  entries: number;
  units: number;
}

/** Entries and units per index partition, over every item of the table. */
async function indexPartitions(endpoint: string): Promise<{ items: number; partitions: Map<IndexName, Map<string, Partition>> }> {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
  const partitions = new Map<IndexName, Map<string, Partition>>(Object.keys(table.indexes).map((name) => [name as IndexName, new Map()]));
  let items = 0;
  await Promise.all(
    Array.from({ length: SCAN_SEGMENTS }, async (_, segment) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: TABLE, Segment: segment, TotalSegments: SCAN_SEGMENTS, ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) {
          items++;
          const units = Math.ceil(itemBytes(item) / 1024);
          for (const [name, keys] of Object.entries(table.indexes) as [IndexName, (typeof table.indexes)[IndexName]][]) {
            const key = item[keys.partitionKey];
            if (typeof key !== 'string' || typeof item[keys.sortKey] !== 'string') continue;
            const partition = partitions.get(name)!.get(key) ?? { entries: 0, units: 0 };
            partition.entries++;
            partition.units += units;
            partitions.get(name)!.set(key, partition);
          }
        }
        start = page.LastEvaluatedKey;
      } while (start);
    }),
  );
  client.destroy();
  return { items, partitions };
}

/** The same entries with each list's shards merged: the partitions an unsharded key would have had. */
function unsharded(partitions: Map<string, Partition>): Map<string, Partition> {
  const merged = new Map<string, Partition>();
  for (const [key, partition] of partitions) {
    const name = key.replace(/#S\d+$/, '');
    const sum = merged.get(name) ?? { entries: 0, units: 0 };
    merged.set(name, { entries: sum.entries + partition.entries, units: sum.units + partition.units });
  }
  return merged;
}

export async function partitionsBenchmark(endpoint: string): Promise<void> {
  const mariadb = await startMariaDb();
  try {
    const url = await mariadb.createDatabase('bench_partitions', THELIA_TABLES);
    const { customer: _customers, address: _addresses, ...products } = generatedStore(PRODUCTS);
    for (const [name, rows] of Object.entries(products)) await insertRows(mariadb.admin, name, rows);
    process.env.STORE_TABLE_NAME = TABLE;
    const { setUpTable } = await import('../../lib/local/setup.js');
    await setUpTable();

    const run = await runImport(['--from', url], { DYNAMODB_ENDPOINT: endpoint, STORE_TABLE_NAME: TABLE });
    const report = run.report;
    if (run.status !== 0 || !report) throw new Error(`the import failed (${run.status}): ${run.stderr.slice(-2000)}`);
    const imported = report.counts.product.imported;
    const productsPerSecond = imported / report.seconds;
    console.log(`\nindex partitions: ${imported} products imported from MariaDB into DynamoDB Local (in memory) in ${report.seconds.toFixed(0)} s: ${productsPerSecond.toFixed(1)} products/s`);

    /** The import rate at which this partition would take its 1 000 units a second. */
    const ceiling = (partition: Partition) => String(Math.round((PARTITION_UNITS_PER_SECOND * imported) / partition.units));
    const { items, partitions } = await indexPartitions(endpoint);
    console.log(`${items} items; per index, its partitions and the hottest one (1 write unit a KB of entry; DynamoDB writes ${PARTITION_UNITS_PER_SECOND} units/s a partition):`);
    console.log(
      'index'.padEnd(6),
      'entries'.padStart(8),
      'partitions'.padStart(11),
      '  hottest partition'.padEnd(30),
      'entries/product'.padStart(16),
      'units/s here'.padStart(13),
      'of limit'.padStart(9),
      'ceiling products/s'.padStart(19),
      'unsharded'.padStart(10),
    );
    for (const [name, byKey] of partitions) {
      if (byKey.size === 0) continue;
      const hottestOf = (partitions: Map<string, Partition>) => [...partitions].reduce((a, b) => (b[1].units > a[1].units ? b : a));
      const [hottestKey, hottest] = hottestOf(byKey);
      const [, hottestUnsharded] = hottestOf(unsharded(byKey));
      const entries = [...byKey.values()].reduce((sum, partition) => sum + partition.entries, 0);
      const unitsPerSecond = hottest.units / report.seconds;
      console.log(
        name.padEnd(6),
        String(entries).padStart(8),
        String(byKey.size).padStart(11),
        `  ${hottestKey.length > 26 ? `${hottestKey.slice(0, 25)}…` : hottestKey}`.padEnd(30),
        (hottest.entries / imported).toFixed(4).padStart(16),
        unitsPerSecond.toFixed(1).padStart(13),
        `${((100 * unitsPerSecond) / PARTITION_UNITS_PER_SECOND).toFixed(1)} %`.padStart(9),
        ceiling(hottest).padStart(19),
        ceiling(hottestUnsharded).padStart(10),
      );
    }
  } finally {
    await mariadb.stop();
  }
}
