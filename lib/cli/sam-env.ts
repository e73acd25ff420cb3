/**
 * The deploy-time values of the functions' environment, supplied outside AWS: what CloudFormation
 * resolves on deployment (the table's name, the Secrets Manager reference) cannot be resolved by
 * `sam local`, nor by a test that runs the built functions. Given a synthesized template, this gives
 * each function its environment the way `sam local invoke --env-vars` does: the template's plain
 * values, with the unresolvable ones replaced.
 *
 *   npm run sam-env -- [--endpoint http://host.docker.internal:8000] [--table store] [--out sam-env.json]
 *
 * writes the --env-vars file for every route function of the dev store's routes stack in cdk.out
 * (npm run synth; another with --template);
 * `npm run sam` (lib/cli/sam.ts) writes its own for the template it runs.
 */
import { present } from '../present.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { useDataDirSecret } from '../local/server-secret.js';
import { routesTemplateIn } from '../../infra/function-ids.js';

export interface LocalValues {
  STORE_TABLE_NAME: string;
  STORE_SECRET: string;
  DYNAMODB_ENDPOINT: string;
}

interface TemplateFunction {
  Type: string;
  Properties: { Environment?: { Variables?: Record<string, unknown> } };
}

/** Every function's environment by logical id: plain template values, and `values` where the template has none. */
export function functionEnvironments(template: { Resources: Record<string, TemplateFunction> }, values: LocalValues): Record<string, Record<string, string>> {
  const environments: Record<string, Record<string, string>> = {};
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables = resource.Properties.Environment?.Variables ?? {};
    environments[logicalId] = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, name in values ? values[name as keyof LocalValues] : typeof value === 'string' ? value : '']));
  }
  return environments;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What a container reaches of `npm start` running on this machine: its DynamoDB Local (the port in
 * its data dir's `dynamodb-endpoint`, as the container reaches the host) and its server secret (the
 * data dir's, made there if `npm start` has not run yet; STORE_SECRET wins), so that both agree on
 * cursors, fingerprints and sealed keys.
 */
export async function localValues(options: { dataDir?: string; endpoint?: string; table?: string } = {}): Promise<LocalValues & { npmStartRunning: boolean; hostEndpoint: string | undefined }> {
  const dataDir = path.resolve(options.dataDir ?? process.env.DATA_DIR ?? '.data');
  const endpointFile = path.join(dataDir, 'dynamodb-endpoint');
  const hostEndpoint = existsSync(endpointFile) ? readFileSync(endpointFile, 'utf8').trim() : undefined;
  const port = hostEndpoint ? new URL(hostEndpoint).port : '8000';
  await useDataDirSecret(dataDir);
  return {
    STORE_TABLE_NAME: options.table ?? process.env.STORE_TABLE_NAME ?? 'store',
    STORE_SECRET: present(process.env.STORE_SECRET, 'STORE_SECRET (useDataDirSecret sets it)'),
    DYNAMODB_ENDPOINT: options.endpoint ?? `http://host.docker.internal:${port}`,
    npmStartRunning: hostEndpoint !== undefined,
    hostEndpoint,
  };
}

/** Writes the `--env-vars` file of a template's functions; returns how many it names. */
export function writeEnvVars(templateFile: string, values: LocalValues, out: string): number {
  const { STORE_TABLE_NAME, STORE_SECRET, DYNAMODB_ENDPOINT } = values;
  const environments = functionEnvironments(JSON.parse(readFileSync(templateFile, 'utf8')), { STORE_TABLE_NAME, STORE_SECRET, DYNAMODB_ENDPOINT });
  writeFileSync(out, `${JSON.stringify(environments, null, 2)}\n`);
  return Object.keys(environments).length;
}

async function main(): Promise<void> {
  const { values: options } = parseArgs({
    options: {
      template: { type: 'string', default: routesTemplateIn(path.join(root, 'cdk.out')) ?? path.join(root, 'cdk.out/manifest.json') },
      endpoint: { type: 'string' },
      table: { type: 'string' },
      out: { type: 'string', default: 'sam-env.json' },
    },
  });
  if (!existsSync(options.template)) throw new Error(`no ${options.template}: run npm run synth first`);
  const values = await localValues({ ...(options.endpoint ? { endpoint: options.endpoint } : {}), ...(options.table ? { table: options.table } : {}) });
  const count = writeEnvVars(options.template, values, options.out);
  console.log(`wrote ${options.out}: ${count} functions, DynamoDB ${values.DYNAMODB_ENDPOINT}, table ${values.STORE_TABLE_NAME}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error: Error) => {
    console.error(error.message);
    process.exit(2);
  });
}
