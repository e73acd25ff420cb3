/**
 * BENCH_ONLY=lists: product lists at store scale (docs/lists.md). BENCH_LIST_PRODUCTS products
 * (default 10 000, made by batches of 100 through the API) in 40 categories, the local search index
 * (SQLite FTS5) built from the table, then for each kind of list a warm page of 100, interleaved with
 * the raw read that serves it (the index's `Query`, or the search index's query and a `BatchGetItem`
 * of its ids): p50/p99 of each, their ratio, and the DynamoDB requests a page costs. Last, how soon a
 * retitled product is found by its new title, with the index followed as `npm start` follows it
 * (a projection every 250 ms and after every placement of the feed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as pause } from 'node:timers/promises';
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { placeChanges } from '../../lib/changes/placer.js';
import { db, tableName } from '../../lib/db/client.js';
import { useSearchEngine } from '../../lib/db/lists/engine.js';
import { filtersOf } from '../../lib/db/lists/arguments.js';
import { decimalValue } from '../../lib/db/lists/query.js';
import { SqliteSearchEngine } from '../../lib/local/search-sqlite.js';
import { products } from '../../lib/products/entity.js';
import { productList } from '../../lib/products/list.js';
import { followIntoSearchIndex } from '../../lib/search/index.js';

type Caller = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: string; headers: Record<string, string> }>;

const PRODUCTS = Number(process.env.BENCH_LIST_PRODUCTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 60);
const WORDS = ['chaise', 'table', 'crème', 'lampe', 'fauteuil', 'étagère', 'bureau', 'canapé', 'tapis', 'miroir', 'buffet', 'commode'];

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** Counts the DynamoDB requests this process sends. */
function requestCounter(): { take(): number } {
  let count = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      count++;
      return next(args);
    },
    { step: 'initialize', name: 'benchListsCount' },
  );
  return {
    take() {
      const taken = count;
      count = 0;
      return taken;
    },
  };
}

async function seed(call: Caller): Promise<number[]> {
  const categories: number[] = [];
  for (let i = 0; i < 40; i++) {
    const created = await call('POST', '/api/categories', { title: `Catégorie ${i}`, locale: 'en_US', visible: 1 });
    if (created.status !== 201) throw new Error(`a category answered ${created.status}`);
    categories.push((JSON.parse(created.body) as { ID: number }[])[0]!.ID);
  }
  const brands: number[] = [0];
  for (let i = 0; i < 8; i++) {
    const created = await call('POST', '/api/brands', { title: `Marque ${i}`, locale: 'en_US', visible: 1 });
    if (created.status !== 201) throw new Error(`a brand answered ${created.status}`);
    brands.push((JSON.parse(created.body) as { ID: number }[])[0]!.ID);
  }
  for (let start = 0; start < PRODUCTS; start += 100) {
    const rows = Array.from({ length: Math.min(100, PRODUCTS - start) }, (_, k) => {
      const n = start + k;
      return {
        op: 'upsert',
        ref: `LIST-${n}`,
        default_category: categories[n % categories.length],
        price: `${(n * 7919) % 20_000}.${String(n % 100).padStart(2, '0')}`,
        currency: 1,
        tax_rule: 1,
        visible: n % 4 !== 0,
        brand_id: brands[n % brands.length],
        weight: String(n % 30),
        locale: 'en_US',
        title: `${WORDS[n % WORDS.length]} ${WORDS[(n * 5) % WORDS.length]} ${n}`,
      };
    });
    // Rows past a batch's time are answered 503 and not applied: sent again until every row is.
    for (let pending = rows; pending.length; ) {
      const answer = await call('POST', '/api/products/batch', { rows: pending });
      if (answer.status !== 200) throw new Error(`a batch answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      const statuses = (JSON.parse(answer.body) as { STATUS: number }[]).map((row) => row.STATUS);
      if (statuses.some((status) => ![201, 204, 503].includes(status))) throw new Error(`a batch row answered ${statuses.find((status) => ![201, 204, 503].includes(status))}`);
      pending = pending.filter((_, i) => statuses[i] === 503);
    }
  }
  return categories;
}

export async function listsBenchmark(call: Caller): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-api-bench-lists-'));
  const engine = new SqliteSearchEngine(path.join(dir, 'search.sqlite'));
  useSearchEngine(engine);
  try {
    let t = performance.now();
    const categories = await seed(call);
    console.log(`\nlists at store scale: ${PRODUCTS} products in ${categories.length} categories, made in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const built = await followIntoSearchIndex(engine);
    console.log(`search index built from the table: ${built?.written} documents written (the walk, then the changes made during it) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const counter = requestCounter();
    const reading = { locale: 'en_US', fallback: 'en_US' };
    // The search index's own query and one BatchGetItem of its ids: what a list it serves costs at least (arguments as parsed).
    const bySearch = (args: Record<string, unknown>, order: string) => async () => {
      const answer = await engine.query({ kind: 'products', ...reading, filters: filtersOf(productList, args), order: productList.orders[order]!, limit: 100, offset: 0 });
      if (answer.ids.length) await db().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: answer.ids.map((id) => products.key(id)) } } }));
    };
    const price = (units: number) => decimalValue(BigInt(units) * 1_000_000n);
    const [a, b] = categories;
    const kinds: Array<[string, string, () => Promise<unknown>]> = [
      [
        'an index order (ref)',
        '/api/products?order=ref&limit=100',
        // Every product's list is in 8 shards (lib/products/entity.ts): the page's share of each (lib/db/entity-lists.ts), queried at once, is its least.
        () =>
          Promise.all(
            Array.from({ length: 8 }, (_, shard) =>
              db().send(new QueryCommand({ TableName: tableName(), IndexName: 'GSI2', KeyConditionExpression: 'gsi2pk = :p', ExpressionAttributeValues: { ':p': `PRODUCTS#S${shard}` }, Limit: 18 })),
            ),
          ),
      ],
      ['a range with another order', '/api/products?min_price=1000&max_price=5000&order=alpha&limit=100', bySearch({ min_price: price(1000), max_price: price(5000) }, 'alpha')],
      ['a text search', `/api/products?title=${encodeURIComponent('crème')}&limit=100`, bySearch({ title: 'crème' }, 'id')],
      [
        'four filters together',
        `/api/products?category=${a},${b}&min_price=100&max_price=15000&visible=1&title=table&order=min_price&limit=100`,
        bySearch({ category: [a, b], min_price: price(100), max_price: price(15_000), visible: '1', title: 'table' }, 'min_price'),
      ],
    ];
    console.log(`warm pages of 100 (${ROUNDS} of each, interleaved with the raw read that serves it): p50 / p99, DynamoDB requests a page, ratio of p50s`);
    for (const [name, url, raw] of kinds) {
      const api: number[] = [];
      const base: number[] = [];
      let requests = 0;
      let rows = 0;
      let total = '';
      for (let i = 0; i < ROUNDS + 5; i++) {
        counter.take();
        let start = performance.now();
        const answer = await call('GET', url);
        const took = performance.now() - start;
        const sent = counter.take();
        if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${answer.body}`);
        start = performance.now();
        await raw();
        const rawTook = performance.now() - start;
        counter.take();
        if (i < 5) continue; // warming
        api.push(took);
        base.push(rawTook);
        requests = sent;
        rows = (JSON.parse(answer.body) as unknown[]).length;
        total = answer.headers['X-Total-Count'] ?? '';
      }
      console.log(
        `  ${name.padEnd(28)} ${rows} rows of ${total}: API ${percentile(api, 0.5).toFixed(1)} / ${percentile(api, 0.99).toFixed(1)} ms, ${requests} requests; raw ${percentile(base, 0.5).toFixed(1)} / ${percentile(base, 0.99).toFixed(1)} ms; ${(percentile(api, 0.5) / percentile(base, 0.5)).toFixed(2)}×`,
      );
    }

    // The index's lag, followed as npm start follows it (lib/local/start.ts).
    let running = true;
    let following: Promise<unknown> | undefined;
    const follow = () => (following ??= followIntoSearchIndex(engine).finally(() => (following = undefined)));
    const loops = [
      (async () => {
        while (running) {
          if ((await placeChanges(Date.now() + 5_000, 'bench lists')).placed > 0) await follow();
          await pause(500);
        }
      })(),
      (async () => {
        while (running) {
          await follow();
          await pause(250);
        }
      })(),
    ];
    const lags: number[] = [];
    for (let i = 0; i < 100; i++) {
      const id = 1 + ((i * 97) % PRODUCTS);
      const word = `retitled${i}x${Date.now()}`;
      const updated = await call('PUT', `/api/products/${id}`, { locale: 'en_US', title: word });
      if (updated.status !== 204) throw new Error(`a retitle answered ${updated.status}`);
      const start = performance.now();
      for (;;) {
        const found = await call('GET', `/api/products?title=${word}`);
        if ((JSON.parse(found.body) as unknown[]).length === 1) break;
        if (performance.now() - start > 30_000) throw new Error('a retitled product was not found within 30 s');
        await pause(20);
      }
      lags.push(performance.now() - start);
    }
    running = false;
    await Promise.all(loops);
    console.log(`  the index's lag after a write's answer (100 retitles): p50 ${percentile(lags, 0.5).toFixed(0)} ms, p99 ${percentile(lags, 0.99).toFixed(0)} ms`);
  } finally {
    useSearchEngine(undefined);
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
