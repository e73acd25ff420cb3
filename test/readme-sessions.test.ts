/**
 * The README's shell sessions, run as written (bash, curl, openssl) against `npm start` on another
 * port than 3000: its helpers with only BASE, KEY and SECURE set to this server's, then the curl
 * session, the products, the batch writes and the changes sections; then the webhooks section and
 * its receiver, run as written. Each answers what the text says it does, its status shown by the
 * helper as the text states it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.js';
import { start } from './support/npm-start.js';

const readme = readFileSync('README.md', 'utf8');

/** The first ```sh (or `language`) block of a section of the README. */
function shellBlock(heading: string, language = 'sh'): string {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  return new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)![1]!;
}

/**
 * `npm start` on a data dir of its own, on another port than 3000, and the curl session's lines (its
 * helpers) but for the three values a reader sets from what npm start printed.
 */
async function startForSession(dir: string, apiKey: string, secureKey: string) {
  const port = await freePort();
  const server = start({ DATA_DIR: dir, PORT: String(port), STORE_SECRET: '', DYNAMODB_ENDPOINT: '', STORE_TABLE_NAME: 'store', STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}` });
  await server.ready;
  const helpers = shellBlock('## A curl session')
    .replace(/^BASE=.*$/m, `BASE=http://127.0.0.1:${port}`)
    .replace(/^KEY=.*$/m, `KEY=${apiKey}`)
    .replace(/^SECURE=.*$/m, `SECURE=${secureKey}`);
  return { server, helpers };
}

let dataDir = '';
afterAll(() => dataDir && rm(dataDir, { recursive: true, force: true }));

describe('the README, as written', () => {
  it('runs the curl session, the products, the batch writes and the changes sections against npm start on another port', async () => {
    const apiKey = 'BEADED0123456789ABCDEF012';
    const secureKey = 'BEADED0123456789ABCDEF0123456789ABCDEF0123456789';
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-readme-'));
    const { server, helpers: session } = await startForSession(dataDir, apiKey, secureKey);
    const script = [session, shellBlock('## Products'), 'echo "--- batch"', shellBlock('## Batch writes'), 'echo "--- changes"', shellBlock('## Changes: who changed what, and a feed to follow')].join(
      '\n',
    );
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 180_000 });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');

    expect(lines[0]).toBe('OK');
    // No answer of any step is a problem (but the batch's rows the text says are): every request was signed as the text says.
    const [beforeBatch, fromBatch] = run.stdout.split('--- batch\n');
    const [batchOutput, changesOutput] = fromBatch!.split('--- changes\n');
    const problems = (text: string) => text.split('\n').filter((line) => line.includes('"status":4') || line.includes('"status":5'));
    expect([...problems(beforeBatch!), ...problems(changesOutput!)]).toEqual([]);
    expect(run.stdout).toContain('"TITLE":"TVA UE"');
    // The visible list right after the create holds the product.
    const visibleList = lines.find((line) => line.startsWith('[') && line.includes('"REF":"CHAIR-1"') && line.includes('"LOOP_TOTAL"'));
    expect(visibleList, run.stdout).toBeDefined();
    // The helper shows each answer's status (on stderr, so that $(api …) is the body alone): the creates' 201, the updates' and the delete's 204.
    expect(run.stderr.split('\n').filter((line) => line.startsWith('→ '))).toEqual(expect.arrayContaining(['→ 201', '→ 204', '→ 200']));
    // The batch: CHAIR-9 created, product 1 (deleted by the Products section) and product 7 missing.
    const [batchBody] = batchOutput!.split('\n');
    expect(JSON.parse(batchBody!).map((row: { STATUS: number }) => row.STATUS)).toEqual([201, 404, 404]);
    // The changes since the cursor end with the lamp's create and price update (those of the sections
    // before may come after `cursor=now` too: it is the position of every change not read yet, placed
    // or still pending); then its history.
    const [, changes] = run.stdout.split('--- changes\n');
    type Row = { RESOURCE: string; TYPE: string; ENTITY_ID: number; CHANGES: Array<{ field: string; after: unknown }> };
    const [since, history] = changes!
      .split('\n')
      .filter((line) => line.startsWith('[{"ID"'))
      .map((line) => JSON.parse(line) as Row[]);
    const lamp = since!.find((row) => row.CHANGES.some((change) => change.after === 'LAMP-1'))!;
    expect(since!.slice(-2).map((row) => `${row.RESOURCE}.${row.TYPE} ${row.ENTITY_ID}`)).toEqual([`product.created ${lamp.ENTITY_ID}`, `product.updated ${lamp.ENTITY_ID}`]);
    expect(history!.map((row) => `${row.TYPE} ${row.ENTITY_ID}`)).toEqual([`created ${lamp.ENTITY_ID}`, `updated ${lamp.ENTITY_ID}`]);

    server.child.kill('SIGTERM');
  }, 180_000);

  it('runs the Webhooks section and its receiver as written: a change npm start sees reaches the receiver, verified', async () => {
    const apiKey = 'BEADED0123456789ABCDEF013';
    const secureKey = 'BEADED0123456789ABCDEF0123456789ABCDEF0123456788';
    const hookDir = await mkdtemp(path.join(tmpdir(), 'store-api-readme-webhooks-'));
    const receiverPort = await freePort();
    const { server, helpers } = await startForSession(hookDir, apiKey, secureKey);
    // The section's subscription, to where this test's receiver listens rather than :4000.
    const subscribe = spawnSync('bash', ['-c', [helpers, shellBlock('## Webhooks').replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`)].join('\n')], { encoding: 'utf8', timeout: 60_000 });
    expect(subscribe.status, subscribe.stderr).toBe(0);
    const secret = /"SECRET":"(whsec_[^"]+)"/.exec(subscribe.stdout)?.[1];
    expect(secret, subscribe.stdout).toBeDefined();

    // The receiver, as written, with the project's own standardwebhooks.
    writeFileSync(path.join(hookDir, 'receiver.mjs'), shellBlock('## Webhooks', 'js'));
    mkdirSync(path.join(hookDir, 'node_modules'));
    symlinkSync(path.resolve('node_modules/standardwebhooks'), path.join(hookDir, 'node_modules/standardwebhooks'));
    const receiver = spawn(process.execPath, ['receiver.mjs'], { cwd: hookDir, env: { ...process.env, PORT: String(receiverPort), WEBHOOK_SECRET: secret! } });
    let received = '';
    receiver.stdout.on('data', (chunk: Buffer) => (received += chunk));
    receiver.stderr.on('data', (chunk: Buffer) => (received += chunk));
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const create = spawnSync('bash', ['-c', `${helpers}\napi POST /api/products '{"ref":"HOOKED-1","default_category":0,"price":"5","currency":1,"tax_rule":1,"locale":"en_US","title":"Hooked"}'`], {
        encoding: 'utf8',
      });
      const id = /^\[\{"ID":(\d+)/m.exec(create.stdout)?.[1];
      expect(id, create.stdout + create.stderr).toBeDefined();
      for (const deadline = Date.now() + 60_000; !received.includes(`product.created ${id} v1`) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toContain(`product.created ${id} v1`);
    } finally {
      receiver.kill();
      server.child.kill('SIGTERM');
      await rm(hookDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }, 180_000);
});
