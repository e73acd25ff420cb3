/**
 * BENCH_ONLY=partitions: how a store's product writes spread over the table's and the indexes' partitions
 * (docs/design.md, "Ceilings on DynamoDB"). A Thelia store of BENCH_PARTITION_PRODUCTS products
 * (100 000 by default; each with its texts in two locales, default sale element, price and category)
 * is imported by `npm run import` into an in-memory DynamoDB Local, through a proxy of this bench that
 * reads every write the import sends and DynamoDB Local answers 200: each item written counts on its
 * table partition (1 write unit a KB, twice in a transaction), and each item put makes an entry in
 * every global secondary index whose keys it has, counted on its partition (the index's partition key
 * value) with the units DynamoDB charges for it (1 a KB: every index projects the whole item). The
 * import's rate is its own (--report). (Reading the table back instead took DynamoDB Local 24 s a
 * page of 2 000 items at that size.)
 *
 * For the table and each index, it prints the hottest partition: its writes per product imported and
 * its write units a second at the import's rate, against DynamoDB's 1 000 units a second per
 * partition, and the import rate (products a second) at which that partition would reach them: its
 * ceiling for an import; and the same with the shards of each list merged (a key's `#S<n>` dropped),
 * as the keys were before the lists were sharded.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unmarshall } from '@aws-sdk/util-dynamodb';
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

interface Partition {
  entries: number;
  units: number;
}

type AttributeMap = Parameters<typeof unmarshall>[0];
/** Where a write lands: the table's own partitions, or an index's. */
type Place = 'table' | IndexName;

/** What the import's committed writes put on each partition, and the writes that carry no whole item. */
interface Tally {
  partitions: Map<Place, Map<string, Partition>>;
  /** Updates and deletes, by kind (an update that sets an index key is named apart: its entry is not counted). */
  others: Map<string, number>;
}

function add(tally: Tally, place: Place, key: string, units: number): void {
  const partitions = tally.partitions.get(place)!;
  const partition = partitions.get(key) ?? { entries: 0, units: 0 };
  partitions.set(key, { entries: partition.entries + 1, units: partition.units + units });
}

/**
 * One write of an item: on its table partition (1 unit a KB, twice in a transaction; an update's or
 * a delete's item is not in the request: counted as 1 KB, what the import's counts and locks stay
 * under), and a put's entry in every index whose keys the item has (1 unit a KB: index entries are
 * written apart from the transaction).
 */
function tallyItem(tally: Tally, kind: string, write: { Item?: AttributeMap; Key?: AttributeMap; UpdateExpression?: string }, transactional: boolean): void {
  const item = unmarshall((write.Item ?? write.Key)!);
  const units = Math.ceil(itemBytes(item) / 1024);
  add(tally, 'table', String(item[table.partitionKey]), units * (transactional ? 2 : 1));
  if (!write.Item) {
    const named = write.UpdateExpression?.includes('gsi') ? `${kind} of an index key` : kind;
    tally.others.set(named, (tally.others.get(named) ?? 0) + 1);
    return;
  }
  for (const [name, keys] of Object.entries(table.indexes) as [IndexName, (typeof table.indexes)[IndexName]][]) {
    const key = item[keys.partitionKey];
    if (typeof key === 'string' && typeof item[keys.sortKey] === 'string') add(tally, name, key, units);
  }
}

/** Counts a write request DynamoDB Local answered 200 (a committed write); condition checks write nothing. */
function tallyWrite(tally: Tally, operation: string, body: Record<string, unknown>): void {
  if (operation === 'TransactWriteItems')
    for (const step of body.TransactItems as Array<Record<string, { Item?: AttributeMap; Key?: AttributeMap }>>) {
      const [kind, write] = Object.entries(step)[0]!;
      if (kind !== 'ConditionCheck') tallyItem(tally, kind, write, true);
    }
  else if (operation === 'BatchWriteItem')
    for (const requests of Object.values(body.RequestItems as Record<string, Array<{ PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } }>>))
      for (const write of requests) tallyItem(tally, write.PutRequest ? 'Put' : 'Delete', (write.PutRequest ?? write.DeleteRequest)!, false);
  else tallyItem(tally, operation, body, false);
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

/** A proxy in front of DynamoDB Local that tallies every write it answers 200. */
async function tallyingProxy(target: string): Promise<{ endpoint: string; tally: Tally; close(): void }> {
  const tally: Tally = { partitions: new Map((['table', ...Object.keys(table.indexes)] as Place[]).map((place) => [place, new Map()])), others: new Map() };
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        if (answer.statusCode === 200 && WRITES.has(operation)) tallyWrite(tally, operation, JSON.parse(body.toString('utf8')) as Record<string, unknown>);
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing);
      });
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tally, close: () => server.close() };
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

/** The partition that took the most units, and its key. */
const hottestOf = (partitions: Map<string, Partition>): [string, Partition] => [...partitions].reduce((a, b) => (b[1].units > a[1].units ? b : a));

export async function partitionsBenchmark(endpoint: string): Promise<void> {
  const mariadb = await startMariaDb();
  try {
    const url = await mariadb.createDatabase('bench_partitions', THELIA_TABLES);
    const { customer: _customers, address: _addresses, ...products } = generatedStore(PRODUCTS);
    for (const [name, rows] of Object.entries(products)) await insertRows(mariadb.admin, name, rows);
    process.env.STORE_TABLE_NAME = TABLE;
    const { setUpTable } = await import('../../lib/local/setup.js');
    await setUpTable();

    const proxy = await tallyingProxy(endpoint);
    const run = await runImport(['--from', url], { DYNAMODB_ENDPOINT: proxy.endpoint, STORE_TABLE_NAME: TABLE }).finally(() => proxy.close());
    const report = run.report;
    if (run.status !== 0 || !report) throw new Error(`the import failed (${run.status}): ${run.stderr.slice(-2000)}`);
    const imported = report.counts.product.imported;
    const productsPerSecond = imported / report.seconds;
    console.log(`\nindex partitions: ${imported} products imported from MariaDB into DynamoDB Local (in memory) in ${report.seconds.toFixed(0)} s: ${productsPerSecond.toFixed(1)} products/s`);

    /** The import rate at which this partition would take its 1 000 units a second. */
    const ceiling = (partition: Partition) => String(Math.round((PARTITION_UNITS_PER_SECOND * imported) / partition.units));
    const { partitions, others } = proxy.tally;
    const otherWrites = [...others].map(([kind, count]) => `${count} × ${kind}`).join(', ');
    console.log(
      `Its writes on the table's partitions (every item written) and each index's (the entries of the items put; besides: ${otherWrites}), the partitions of each and the hottest one (DynamoDB writes ${PARTITION_UNITS_PER_SECOND} units/s a partition):`,
    );
    console.log(
      'where'.padEnd(6),
      'writes'.padStart(8),
      'partitions'.padStart(11),
      '  hottest partition'.padEnd(30),
      'writes/product'.padStart(16),
      'units/s here'.padStart(13),
      'of limit'.padStart(9),
      'ceiling products/s'.padStart(19),
      'unsharded'.padStart(10),
    );
    for (const [name, byKey] of partitions) {
      if (byKey.size === 0) continue;
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
