/**
 * `npm run bench`: speed and size, measured (not asserted).
 *   - latency of every route, in-process through the same dispatch as the local server, against an
 *     in-memory DynamoDB Local seeded with 200 customers and 200 products (p50/p95/max, req/s);
 *   - the size of each Lambda bundle, built as the CDK stack builds it.
 * Numbers from this 2-core machine and DynamoDB Local, not from AWS: compare runs, not absolutes.
 */
import { build } from 'esbuild';
import { performance } from 'node:perf_hooks';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

process.env.STORE_LOG_LEVEL = 'silent';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.STORE_TABLE_NAME = 'bench';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);

const dynamo = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
try {
  const { setUpTable } = await import('../../lib/local/setup.js');
  const { createApiKey } = await import('../../lib/api-keys/index.js');
  const { signBody } = await import('../../lib/http/auth.js');
  const { dispatch } = await import('../../lib/local/dispatch.js');
  const { routes, handlerFile } = await import('../../lib/routes.js');

  await setUpTable();
  const key = await createApiKey({ label: 'bench', superadmin: true });

  let n = 0;
  const call = async (method: string, url: string, body?: unknown) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const sign = signBody(key.secureKey, raw);
    const response = await dispatch({
      method,
      url: `${url}${url.includes('?') ? '&' : '?'}sign=${sign}`,
      headers: { authorization: `Token ${key.apiKey}`, ...(raw ? { 'content-type': 'application/json' } : {}) },
      body: raw,
    });
    return { status: response.statusCode ?? 0, body: response.body ?? '' };
  };
  const customer = () => ({
    title: 1, firstname: 'Bench', lastname: `Name${++n}`, email: `bench${n}@example.com`, password: 'bench password',
    lang_id: 1, country: 64, zipcode: '75001', city: 'Paris', address1: '1 rue',
  });
  const product = () => ({ ref: `BENCH-${++n}`, default_category: 1, price: '19.99', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Bench', visible: n % 2 });

  for (let i = 0; i < 200; i++) {
    await call('POST', '/api/customers', customer());
    await call('POST', '/api/products', product());
  }
  const login = customer();
  await call('POST', '/api/customers', login);

  const scenarios: Array<[string, () => Promise<{ status: number }>]> = [
    ['GET /api', () => call('GET', '/api')],
    ['GET /api/tax-rules', () => call('GET', '/api/tax-rules')],
    ['GET /api/tax-rules/1', () => call('GET', '/api/tax-rules/1')],
    ['GET /api/customers (page 1)', () => call('GET', '/api/customers?limit=20')],
    ['GET /api/customers?order=lastname&offset=100', () => call('GET', '/api/customers?limit=20&order=lastname&offset=100')],
    ['GET /api/customers/100', () => call('GET', '/api/customers/100')],
    ['POST /api/customers (Argon2id)', () => call('POST', '/api/customers', customer())],
    ['POST /api/customers/checkLogin', () => call('POST', '/api/customers/checkLogin', { email: login.email, password: login.password })],
    ['GET /api/products (page 1)', () => call('GET', '/api/products?limit=20')],
    ['GET /api/products?visible=1&order=ref', () => call('GET', '/api/products?limit=20&visible=1&order=ref')],
    ['GET /api/products/100', () => call('GET', '/api/products/100')],
    ['POST /api/products', () => call('POST', '/api/products', product())],
    ['PUT /api/products/100', () => call('PUT', '/api/products/100', { price: Math.random() * 100 > 50 ? '10' : '20' })],
  ];

  console.log(`latency (${ITERATIONS} requests each, sequential)`);
  console.log('route'.padEnd(50), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'max ms'.padStart(8), 'req/s'.padStart(8));
  for (const [name, run] of scenarios) {
    const times: number[] = [];
    const iterations = name.includes('Argon2id') || name.includes('checkLogin') ? Math.min(ITERATIONS, 50) : ITERATIONS;
    const start = performance.now();
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      const { status } = await run();
      if (status >= 400) throw new Error(`${name} answered ${status}`);
      times.push(performance.now() - t);
    }
    const total = performance.now() - start;
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    console.log(name.padEnd(50), at(0.5).padStart(8), at(0.95).padStart(8), times.at(-1)!.toFixed(1).padStart(8), ((iterations * 1000) / total).toFixed(0).padStart(8));
  }

  console.log('\nbundle size (minified ESM, @aws-sdk external as on the Node 22 runtime)');
  for (const route of routes) {
    const result = await build({
      entryPoints: [handlerFile(route)],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      external: ['@aws-sdk/*'],
      write: false,
    });
    console.log(route.name.padEnd(50), `${(result.outputFiles[0]!.contents.length / 1024).toFixed(1)} KiB`.padStart(12));
  }
} finally {
  await dynamo.stop();
}
