/**
 * GET /api/docs as a person sees it: `npm start` serves the page, headless Chromium (Debian's
 * `chromium`, installed by .ci/run) renders it with no network but the API's, and every route must
 * be listed. A screenshot is kept in test-artifacts/docs.png (not committed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.js';
import { routes } from '../lib/routes.js';
import { start } from './support/npm-start.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts');
const profile = mkdtempSync(path.join(tmpdir(), 'store-api-chromium-'));
let base = '';
let stop = () => {};

/** Headless Chromium with no network of its own: only the page's requests to the API go out. */
function chromium(...args: string[]) {
  const result = spawnSync(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`,
      '--virtual-time-budget=15000',
      ...args,
    ],
    { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.error) throw result.error;
  return result.stdout;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`this test needs Chromium at ${CHROMIUM} (Debian/Ubuntu: apt-get install chromium), or CHROMIUM=<path>`);
  const port = await freePort();
  const { child, ready } = start({ PORT: String(port), DATA_DIR: profile, DYNAMODB_ENDPOINT: inject('dynamoEndpoint'), STORE_TABLE_NAME: `docs-${port}` });
  await ready;
  base = `http://127.0.0.1:${port}`;
  stop = () => child.kill('SIGTERM');
}, 180_000);

afterAll(() => {
  stop();
  rmSync(profile, { recursive: true, force: true });
});

describe('GET /api/docs', () => {
  it('is open, and carries every file it needs (no CDN)', async () => {
    const response = await fetch(`${base}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('SwaggerUIBundle');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="(https?:)?\/\//);
  });

  it('renders in headless Chromium, listing every route of the route table', () => {
    const dom = chromium('--dump-dom', `${base}/api/docs`);
    for (const route of routes.filter((r) => r.method !== 'ANY')) {
      const operationId = route.name.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase());
      expect(dom, `${route.method} ${route.path}`).toContain(`id="operations-${route.permission?.resource ?? 'service'}-${operationId}"`);
      expect(dom, route.path).toContain(`data-path="${route.path}"`);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, 'docs.png');
    chromium(`--screenshot=${screenshot}`, '--window-size=1280,2400', `${base}/api/docs`);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  }, 180_000);
});
