/**
 * The deployed code, tested: the app is synthesized with its bundled assets (each within its size
 * budget: what a cold start loads), and every function's
 * asset is loaded in a fresh Node process with the template's Handler and Environment (deploy-time
 * values supplied as `sam local invoke --env-vars` supplies them, lib/cli/sam-env.ts), invoked with
 * its `events/` sample and a Lambda-like context against DynamoDB Local, and must answer its route's
 * success status. The samples are played in order on this file's table: the creates make the ids
 * the later events use.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { signBody } from '../lib/api-keys/signature.js';
import { functionEnvironments } from '../lib/cli/sam-env.js';
import { eventFile, loadSampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../lib/local/sample-events.js';
import type { RouteDefinition } from '../lib/routes.js';
import { runBuilt, synthesizeFunctions, type BuiltFunction } from './support/built-functions.js';
import { startKmsStandIn } from './support/kms-stand-in.js';
import { startSecretsManagerStandIn } from './support/secrets-manager-stand-in.js';
import { routeGroups } from '../infra/store-api.js';
import openApiDocument from '../lib/openapi/openapi.json' with { type: 'json' };

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

const outdir = mkdtempSync(path.join(tmpdir(), 'store-api-artifact-'));
// The functions and this process must agree on the secret the sample key's secure key is sealed under.
const SERVER_SECRET = 'artifact test secret';
process.env.STORE_SECRET = SERVER_SECRET;
let built: BuiltFunction[];
let template: { Resources: Record<string, any> };
let dataTemplate: { Resources: Record<string, any> };
let assembly: string;
let environments: Record<string, Record<string, string>>;

beforeAll(async () => {
  const synthesized = synthesizeFunctions(outdir);
  built = synthesized.functions;
  template = synthesized.template;
  dataTemplate = synthesized.dataTemplate;
  assembly = synthesized.assembly;
  environments = functionEnvironments(template, {
    STORE_TABLE_NAME: process.env.STORE_TABLE_NAME!,
    STORE_SECRET: SERVER_SECRET,
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
  });
  await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);
}, 180_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/**
 * What a route's bundle may weigh, in KiB. The AWS SDK (about 190 KiB of the floor handler, the
 * credentials taken from Lambda's environment: lib/lambda-credentials.ts) is bundled into every
 * route that uses DynamoDB; the SDK's default credential chain, its STS and SSO clients, weighed
 * 132 KiB more in each, and every bound below came down by as much when they were left out; every protected route counts its key's quota and
 * opens sealed secure keys (AES-GCM from node:crypto; KMS's client is a file of its own beside the bundle, loaded at first need): about
 * 6 KiB. The routes given more memory hash passwords (Argon2id in WebAssembly, bcrypt). The webhook
 * routes carry ipaddr.js (IANA's special-purpose ranges: their operations check URLs), a few KiB.
 * A batch route carries its resource's create, update and delete together, and the batch edge: ten
 * KiB more than one of them. The stored items' declarations (lib/db/stored.ts: the changes a write
 * records, the feed it may place) weigh about 3 KiB in every route that writes or reads the feed.
 * A list that searches (docs/lists.md) carries its loop arguments, the planner and the OpenSearch
 * engine with its SigV4 (lib/opensearch/): 12 KiB more. The OpenAPI route carries the document itself, and a reference route its kind's rows
 * (lib/reference/data/rows/), each once, minified, and nothing else of the data. The protected
 * routes' bound went from 423 to 424 KiB with the lists' seventh index and its ranges, and the
 * catalog texts written once (products/create, the largest, then weighed 423.1 KiB); to 425 KiB with
 * the eighth index, writes as plans and every `!` replaced by a type or a check that names what is
 * missing (lib/present.ts): products/create then weighed 424.4 KiB; to 426 KiB with defineEntity
 * split by concern (lib/db/entity-*.ts: each concern's functions named, 0.9 KiB more; products/create
 * 425.3 KiB). The registry, which every function carries, grew by about 10 KiB (unminified, as
 * every bundle is) with brands, attributes and their values (18 routes) and then product sale
 * elements (7 routes): each bound 2–4 KiB higher (customers/check-login 343.1, products/list 306.4,
 * products/batch 306.4, webhooks/create 302.3, products/create — which makes its default sale element
 * — 299.0). A sale element's write carries what it writes beside it (the product, its tax rule, the
 * attribute values): pse/update 308.4, pse/batch 314.3. Reads asked at once sent as one BatchGet
 * (lib/db/items.ts) and an entity's declared walk cost every function about 1 KiB, and a batch's
 * rows written packed (commitPacked) every batch about 1.5 KiB more: products/create 300.1,
 * customers/check-login 344.0, webhooks/create 303.1, products/list 307.2 (308.2 once a refused request's line says why), pse/update 309.5,
 * products/batch 308.7 (309.0 once a list answers 503 while its index is built), pse/batch 316.6 (317.1 with a
 * request's metrics written whatever the log level). A refused request's line saying why, and the
 * positions claimed among siblings, about 0.8 KiB more in every function: products/create 300.9,
 * customers/check-login 344.9, webhooks/create 303.9, pse/update 310.3, products/batch 309.6,
 * pse/batch 317.5. The credentials of Lambda's local endpoint beside its environment's (SnapStart),
 * about 7.5 KiB in every function: products/create 308.5, customers/check-login 352.4,
 * webhooks/create 311.4, pse/update 317.8, products/list 315.9, products/batch 317.1, pse/batch 325.1.
 * Lists merged from shards of their partitions (lib/db/entity-lists.ts), a write path of one
 * executor and the search index's retries, 1.1–1.6 KiB more: products/create 309.7,
 * customers/check-login 354.1, webhooks/create 313.0, pse/update 319.2, products/list 316.5,
 * products/batch 318.3, pse/batch 326.3. A take's fences kept with their times and dropped past 20
 * minutes (lib/db/logged-add.ts), 0.6 KiB in pse/update: 329.2. A sale element priced from the
 * cached rules (pricedBy), a new one's price required, an unknown entry's id named and a batch row's
 * bad input named as the row's, 0.2–0.3 KiB: pse/batch 333.1. A sale element's values shown in
 * their attributes' order as it is now (lib/attribute-avs/order.ts), 0.5–2 KiB in the pse routes
 * (less where a write read attributes already): pse/list 320.3, pse/update 330.3, pse/batch 333.6.
 */
function budgetKiB(route: RouteDefinition): number {
  const kib = (bytes: number) => Math.ceil(bytes / 1024);
  if (route.name === 'openapi/get') return kib(JSON.stringify(openApiDocument).length) + 14;
  if (route.permission === null) return 80;
  // A sale element's write carries what it writes beside it, and the recording of stock takes left
  // pending (3.7 KiB: lib/db/logged-add.ts); its update, the take itself and its fence for a lost
  // answer (3.6 KiB more); its batch, the batch machinery too (333.6 KiB). Every sale element's row
  // carries its values' order (lib/attribute-avs/order.ts, with the attributes' and values'
  // declarations where a route had none): pse/list 320.3, pse/update 330.3, pse/create 325.0.
  if (route.name.startsWith('pse/') && route.permission.access !== 'VIEW') return route.name.endsWith('/batch') ? 334 : route.name === 'pse/update' ? 331 : 326;
  if (route.name === 'pse/list') return 321;
  // A product's update, delete and batch record the takes left pending in its sale elements first.
  if (route.name.startsWith('products/') && route.permission.access !== 'VIEW') return route.name.endsWith('/batch') ? 325 : 316;
  if (route.name.endsWith('/batch')) return route.deployment.hashesPasswords ? 360 : 321;
  // Every function carries 0.6 KiB more since the data layer has stored forms and pending logs (a
  // stock's number read exactly): the budgets it crossed grew by 1 KiB.
  if (route.deployment.hashesPasswords) return 357;
  if (route.permission.resource === 'webhook') return 316;
  if (route.permission.resource === 'reference') return 303 + kib(statSync(`lib/reference/data/rows/${route.name.split('/')[0]}.json`).size);
  if (route.deployment.searches) return 320;
  return 313;
}

describe('the synthesized functions', () => {
  it('are bundled by the local esbuild, each within its budget (open routes carry no SDK)', () => {
    for (const fn of built) {
      const budget = budgetKiB(fn.route);
      expect(statSync(fn.file).size, fn.route.name).toBeLessThan(budget * 1024);
      // Its clients take Lambda's credentials from the environment or its credentials endpoint:
      // none of the default chain's other sources (web identity, SSO, profiles' processes).
      const code = readFileSync(fn.file, 'utf8');
      for (const source of ['AWS_WEB_IDENTITY_TOKEN_FILE', 'sso_start_url', 'credential_process']) expect(code, `${fn.route.name}: ${source}`).not.toContain(source);
    }
    // The change publisher: the EventBridge client and Powertools' batch processor, no HTTP stack and
    // no DynamoDB client (it reads the stream's images): 312.5 KiB once package.json said our modules
    // have no side effects, so that esbuild drops those whose exports nothing uses (361.6 KiB before);
    // 185.7 KiB with the credentials from Lambda's environment; 193.9 KiB with its credentials endpoint's too.
    const assetOf = (resources: Record<string, any>, prefix: string) => {
      const [, fn] = Object.entries(resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(prefix))!;
      return path.join(assembly, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
    };
    expect(statSync(path.join(assetOf(dataTemplate.Resources, 'ChangeEventsPublisher'), 'index.mjs')).size).toBeLessThan(196 * 1024);
    // Each routes stack's pre-traffic hook: the runtime's CodeDeploy and Lambda clients, and the sample of every route it checks beside it.
    const hooks = Object.entries(template.Resources)
      .filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && /PreTraffic[0-9A-F]{8}$/.test(id))
      .map(([, fn]) => path.join(assembly, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`));
    expect(hooks).toHaveLength(routeGroups().size);
    for (const hook of hooks) expect(statSync(path.join(hook, 'index.mjs')).size).toBeLessThan(40 * 1024);
    for (const sample of sampleRequests) {
      expect(
        hooks.some((hook) => existsSync(path.join(hook, path.basename(eventFile(sample.route))))),
        sample.route,
      ).toBe(true);
    }
  });

  it('declare, for each function, only plain values or the ones an --env-vars file supplies', () => {
    for (const fn of built) {
      // A protected route opens API keys' sealed secure keys: under KMS on AWS, under the server secret elsewhere.
      const sealed = fn.route.permission ? ['STORE_SECRET', 'STORE_SECRETS_KEY_ARN'] : [];
      const secret = fn.route.deployment.usesServerSecret ? ['STORE_SECRET_ARN'] : [];
      // Every function keeps changes as long as the stack says, and names its stage in its metrics (infra/constructs/bundled-function.ts).
      expect(Object.keys(environments[fn.logicalId]!).sort(), fn.route.name).toEqual(
        ['DYNAMODB_ENDPOINT', 'STORE_CHANGE_RETENTION_DAYS', 'STORE_STAGE', ...sealed, ...secret, 'STORE_ROUTE', 'STORE_TABLE_NAME'].sort(),
      );
    }
  });

  it("open a key sealed under KMS and read the server secret from Secrets Manager on a first request, with their clients bundled beside them, never the runtime's", async () => {
    const [kms, secretsManager] = await Promise.all([startKmsStandIn(), startSecretsManagerStandIn(SERVER_SECRET)]);
    const work = mkdtempSync(path.join(tmpdir(), 'store-api-kms-event-'));
    try {
      const beside = (fn: BuiltFunction, module: string, file: string) => {
        const code = readFileSync(fn.file, 'utf8');
        expect(code, fn.route.name).toContain(`"./${file}"`);
        expect(code, fn.route.name).not.toContain(`"${module}"`);
        expect(existsSync(path.join(path.dirname(fn.file), file)), fn.route.name).toBe(true);
      };
      for (const fn of built.filter((f) => f.route.permission)) beside(fn, '@aws-sdk/client-kms', 'aws-sdk-client-kms.mjs');
      for (const fn of built.filter((f) => f.route.deployment.usesServerSecret)) beside(fn, '@aws-sdk/client-secrets-manager', 'aws-sdk-client-secrets-manager.mjs');
      // A key made as an operator makes one for a deployment (`npm run api-key` with the stack's key):
      // its secure key sealed under a data key from KMS, bound to its item.
      const kmsEnvironment = { STORE_SECRETS_KEY_ARN: kms.keyId, KMS_ENDPOINT: kms.endpoint };
      // (Run apart, not waited for synchronously: the stand-in answers from this process.)
      const made = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'lib/cli/api-key.ts', 'create', '--label', 'sealed under KMS', '--superadmin'], {
        env: { ...process.env, ...kmsEnvironment },
        encoding: 'utf8',
      });
      expect(kms.calls.GenerateDataKey).toBe(1);
      const key = JSON.parse(made.stdout) as { apiKey: string; secureKey: string };
      // A list's sample (it signs its cursor with the server secret), signed by that key; the assets are
      // outside the repository: no node_modules to fall back on. As on AWS, the function has the
      // secret's ARN, not the secret.
      const fn = built.find((f) => f.route.name === 'tax-rules/list')!;
      const event = JSON.parse(readFileSync(eventFile('tax-rules/list'), 'utf8'));
      const sign = signBody(key.secureKey, '');
      // One rule a page: the seeded rules leave a next page, whose cursor is signed.
      Object.assign(event, { rawQueryString: `limit=1&sign=${sign}`, queryStringParameters: { limit: '1', sign } });
      event.headers.authorization = `Token ${key.apiKey}`;
      writeFileSync(path.join(work, 'event.json'), JSON.stringify(event));
      const { STORE_SECRET: _given, ...environment } = environments[fn.logicalId]!;
      const onAws = { ...environment, ...kmsEnvironment, STORE_SECRET_ARN: secretsManager.secretArn, AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint };
      const decrypts = kms.calls.Decrypt;
      const invocation = await runBuilt(fn.file, fn.handler.split('.')[1]!, onAws, path.join(work, 'event.json'));
      expect(invocation.response?.statusCode, invocation.response?.body).toBe(200);
      expect(invocation.response?.headers?.['X-Next-Cursor'] ?? invocation.response?.headers?.['x-next-cursor']).toBeTruthy();
      expect(kms.calls.Decrypt).toBe(decrypts + 1);
      expect(secretsManager.reads).toBe(1);
    } finally {
      await Promise.all([kms.close(), secretsManager.close()]);
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("answer each sample event with the route's success status, each loaded fresh as Lambda loads it", async () => {
    for (const sample of sampleRequests) {
      const fn = built.find((f) => f.route.name === sample.route)!;
      const invocation = await runBuilt(fn.file, fn.handler.split('.')[1]!, environments[fn.logicalId]!, path.resolve(eventFile(sample.route)));
      expect(invocation.response?.statusCode, `${sample.route}: ${invocation.response?.body}`).toBe(fn.route.status);
    }
  }, 180_000);
});
