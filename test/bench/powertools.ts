/**
 * BENCH_ONLY=powertools: what Powertools for AWS Lambda's Metrics (and its middy middleware) would
 * cost a route, against the Embedded Metric Format lines lib/log.ts writes by hand (issue 45, point
 * 4). Both as a middy handler that records two metrics with one dimension, bundled by this project's
 * esbuild settings: bytes, gzip bytes, and import time in a fresh Node process, alternated, medians
 * of BENCH_PAIRS pairs. Powertools is installed for the run in a temporary directory (npm), never a
 * dependency of the project.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';

const POWERTOOLS = '@aws-lambda-powertools/metrics@2.36.0';
const PAIRS = Number(process.env.BENCH_PAIRS ?? 15);

const HANDLERS = {
  powertools: `import middy from '@middy/core';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
const metrics = new Metrics({ namespace: 'StoreApi', serviceName: 'store-api' });
export const handler = middy(async () => {
  metrics.addDimension('Route', 'products/get');
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric('Latency', MetricUnit.Milliseconds, 3.2);
  return { statusCode: 200 };
}).use(logMetrics(metrics));`,
  'by hand (lib/log.ts)': `import middy from '@middy/core';
const directive = (ns, metrics, dims) => ({ _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: ns, Dimensions: [dims], Metrics: metrics.map(([Name, Unit]) => ({ Name, Unit })) }] } });
export const handler = middy(async () => {
  process.stdout.write(JSON.stringify({ Route: 'products/get', Requests: 1, Latency: 3.2, ...directive('StoreApi', [['Requests', 'Count'], ['Latency', 'Milliseconds']], ['Route']) }) + '\\n');
  return { statusCode: 200 };
});`,
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function powertoolsMetricsCost(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-api-bench-powertools-'));
  try {
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module","private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', POWERTOOLS, '@middy/core@7'], { cwd: dir, stdio: 'ignore' });
    const files: Record<string, string> = {};
    for (const [name, source] of Object.entries(HANDLERS)) {
      const entry = path.join(dir, `${name.split(' ')[0]}.mjs`);
      writeFileSync(entry, source);
      const outfile = path.join(dir, `out-${name.split(' ')[0]}.mjs`);
      await build({ ...bundleBuildOptions(entry, outfile), logLevel: 'error' });
      files[name] = outfile;
    }
    const importMs = (file: string) =>
      Number(
        execFileSync(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`], {
          encoding: 'utf8',
        }).trim(),
      );
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(files).map((name) => [name, []]));
    for (let i = 0; i < PAIRS; i++) for (const [name, file] of Object.entries(files)) times[name]!.push(importMs(file));
    console.log(`\nmetrics by Powertools (${POWERTOOLS} and its middy middleware) against EMF by hand: a middy handler with 2 metrics, ${PAIRS} imports of each, alternated`);
    const base = median(times['by hand (lib/log.ts)']!);
    for (const [name, file] of Object.entries(files)) {
      const bytes = readFileSync(file);
      console.log(
        `  ${name.padEnd(22)} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip), import ${median(times[name]!).toFixed(2)} ms, ${(median(times[name]!) / base).toFixed(2)}×`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
