/**
 * The README's shell sessions, run as written (bash, curl, openssl) against `npm start` on another
 * port than 3000: its helpers with only BASE, KEY and SECURE set to this server's, then, in one
 * shell and in the README's order, the curl session, customers, products, categories, brands and
 * attributes, reference data, batch writes, lists and changes, then the API keys section (its tool on that npm start's
 * data dir); then the webhooks section and its receiver, run as written. Each answers what the text
 * says it does, its status shown by the helper as the text states it. The sections that need AWS
 * (Events on EventBridge, Deploying) or a Thelia database (Moving from Thelia) are not run here:
 * test/events-publish.test.ts and test/import*.test.ts run what they describe.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.js';
import { start, usersShell } from './support/npm-start.js';
import { readDocs } from './support/docs.js';

// The README and docs/, in the order a reader goes through them.
const readme = readDocs();

/** The first ```sh (or `language`) block of a section of the README, or its nth (from 0). */
function shellBlock(heading: string, language = 'sh', nth = 0): string {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))][nth]![1]!;
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
  it('runs the sections from the curl session to the changes, then the API keys, in one shell against npm start on another port', async () => {
    const apiKey = 'BEADED0123456789ABCDEF012';
    const secureKey = 'BEADED0123456789ABCDEF0123456789ABCDEF0123456789';
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-readme-'));
    const { server, helpers: session } = await startForSession(dataDir, apiKey, secureKey);
    const script = [
      session,
      shellBlock('## Customers'),
      shellBlock('## Products'),
      shellBlock('## Categories'),
      shellBlock('## Brands, attributes and their values'),
      shellBlock('## Sale elements: variants, stock, prices per currency'),
      shellBlock('## Reference data'),
      'echo "--- batch"',
      shellBlock('## Batch writes'),
      'echo "--- lists"',
      // A reader takes a moment between two sections; the search index follows the writes in it (within 2 s, Lists), longer on a busy machine.
      `for i in $(seq 1 120); do api GET '/api/products?title=oak' 2>/dev/null | grep -q CHAIR-2 && break; sleep 0.5; done`,
      shellBlock('## Lists'),
      'echo "--- changes"',
      shellBlock('## Changes: who changed what, and a feed to follow'),
    ].join('\n');
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 180_000 });
    expect(run.status, run.stderr).toBe(0);
    // Signing from Node, pasted into a module and called with the same three values the shell has.
    const module = path.join(dataDir, 'call.mjs');
    writeFileSync(
      module,
      `${shellBlock('### Signing from Node', 'js')}\nconsole.log(JSON.stringify(await call('POST', '/api/customers/checkLogin', { email: 'jeanne@example.com', password: 'wrong password' })));\n`,
    );
    const base = /^BASE=(\S+)/m.exec(session)![1]!;
    const fromNode = spawnSync(process.execPath, [module], { encoding: 'utf8', env: { ...process.env, BASE: base, KEY: apiKey, SECURE: secureKey } });
    // Signed as the API checks it (a wrong sign would be a 412): the check itself answers 404, no such email and password.
    expect(JSON.parse(fromNode.stdout)[0], fromNode.stderr).toBe(404);
    const lines = run.stdout.split('\n');
    // Every answer the helper shows is a success (the batch's rows answer for themselves, inside its 200).
    const statuses = run.stderr.split('\n').filter((line) => line.startsWith('→ '));
    expect(statuses.length).toBeGreaterThan(25);
    expect(
      statuses.filter((line) => !/^→ 2\d\d$/.test(line)),
      run.stdout,
    ).toEqual([]);
    // Customers: the login checked; categories: the chairs listed under their category; the lists: the oak chair by its category, price and title.
    expect(run.stdout).toContain('"EMAIL":"jeanne@example.com"');
    const [beforeLists, fromLists] = run.stdout.split('--- lists\n');
    expect(beforeLists).toMatch(/"REF":"CHAIR-2"[^\n]*"DEFAULT_CATEGORY":2/);
    // Brands and attributes: the chair's brand in French, and the size's values by position.
    expect(beforeLists).toMatch(/^\[\{"ID":1,"LOCALE":"fr_FR","IS_TRANSLATED":1,"TITLE":"Acmé"/m);
    expect(beforeLists).toMatch(/^\[\{"ID":2,"ATTRIBUTE_ID":1,[^\n]*"TITLE":"Large"[^\n]*\{"ID":1,"ATTRIBUTE_ID":1,[^\n]*"TITLE":"Small"/m);
    // Sale elements: the variant's stock after two were taken, and its dollar price following the euro's (52 × 1.26).
    expect(beforeLists).toMatch(/^\[\{"ID":3,"PRODUCT_ID":2,"REF":"CHAIR-2-L"[^\n]*"QUANTITY":"8\.000000"/m);
    expect(beforeLists).toMatch(/^\[\{"ID":3,[^\n]*"CURRENCY":2,"PRICE":"65\.520000"/m);
    expect(fromLists!.split('\n')[0]).toMatch(/^\[\{"ID":\d+,[^\n]*"REF":"CHAIR-2"/);
    // Read in order, the customer the Customers section kept is the one the lists find.
    expect(fromLists!.split('\n')[2]).toMatch(/^\[\{"ID":1,[^\n]*"LASTNAME":"Martin"/);

    expect(lines[0]).toBe('OK');
    // No answer of any step is a problem (but the batch's rows the text says are): every request was signed as the text says.
    const [beforeBatch, fromBatch] = run.stdout.split('--- batch\n');
    const [batchAndLists, changesOutput] = fromBatch!.split('--- changes\n');
    const [batchOutput] = batchAndLists!.split('--- lists\n');
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
    // (the lamp's default sale element, created with it and following its price, records its own changes beside.)
    const ofProducts = since!.filter((row) => row.RESOURCE === 'product');
    expect(ofProducts.slice(-2).map((row) => `${row.RESOURCE}.${row.TYPE} ${row.ENTITY_ID}`)).toEqual([`product.created ${lamp.ENTITY_ID}`, `product.updated ${lamp.ENTITY_ID}`]);
    expect(history!.map((row) => `${row.TYPE} ${row.ENTITY_ID}`)).toEqual([`created ${lamp.ENTITY_ID}`, `updated ${lamp.ENTITY_ID}`]);

    // The API keys section, its tool finding this npm start by its data dir; `OLD_KEY` set as a reader
    // sets it, from the list: the shop-sync key the section made.
    const keys = spawnSync(
      'bash',
      [
        '-c',
        [
          session,
          shellBlock('## API keys').replace(
            /^OLD_KEY=.*$/m,
            `OLD_KEY=$(npm run -s api-key -- list | node -e 'const keys = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(keys.find((k) => k.label === "shop-sync").apiKey)')`,
          ),
          'echo "--- quotas"',
          shellBlock('## API keys', 'sh', 2),
          'api GET /api/tax-rules >/dev/null',
        ].join('\n'),
      ],
      // A reader's shell: none of this test's own table, endpoint or secret.
      { encoding: 'utf8', timeout: 120_000, env: usersShell({ DATA_DIR: dataDir }) },
    );
    expect(keys.status, keys.stderr).toBe(0);
    expect(keys.stdout).toMatch(/"revoked":"[0-9A-F]{25}"/);
    // The list, as the tool prints it: a JSON array from a line `[` to a line `]`.
    const keyLines = keys.stdout.split('\n');
    const listed = JSON.parse(keyLines.slice(keyLines.indexOf('['), keyLines.indexOf(']') + 1).join('\n')) as Array<Record<string, unknown>>;
    expect(listed.map((key) => key.label)).toEqual(expect.arrayContaining(['shop-sync', 'admin']));
    expect(JSON.stringify(listed)).not.toContain('secureKey');
    // The quota set on this session's key shows on its next answer.
    expect(keys.stdout.split('--- quotas\n')[1], keys.stderr).toContain(`"apiKey":"${apiKey}","quota":{"requests":300,"seconds":60}`);

    server.child.kill('SIGTERM');
  }, 240_000);

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
