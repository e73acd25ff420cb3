/**
 * npm run api-key -- create --label L (--superadmin | --grant customer:VIEW,CREATE [--grant tax:VIEW ...]) [--quota N/SECONDS|none]
 * npm run api-key -- list
 * npm run api-key -- quota <API_KEY> N/SECONDS|none
 * npm run api-key -- revoke <API_KEY>
 *
 * Works on the table connect.ts picks: $DYNAMODB_ENDPOINT, else the DynamoDB Local of a running
 * `npm start`, else one started for the command. On AWS, unset DYNAMODB_ENDPOINT and set
 * STORE_TABLE_NAME and the usual AWS_* variables.
 */
import { parseArgs } from 'node:util';
import { ACCESSES, GRANTS, createApiKey, listApiKeys, revokeApiKey, setApiKeyQuota, type Grants } from '../api-keys/index.js';
import { DEFAULT_QUOTA, parseQuota } from '../api-keys/quota.js';
import type { Access } from '../routes.js';
import { connectToTable } from './connect.js';
import { failureText, isUsageError, UsageError } from './usage.js';

const USAGE = `usage:
  npm run api-key -- create --label LABEL (--superadmin | --grant RESOURCE:ACCESS[,ACCESS...] ...) [--quota N/SECONDS|none]
  npm run api-key -- list
  npm run api-key -- quota API_KEY N/SECONDS|none
  npm run api-key -- revoke API_KEY
resources: ${GRANTS.join(', ')}; accesses: ${ACCESSES.join(', ')}
quota: requests per window, by default ${DEFAULT_QUOTA.requests}/${DEFAULT_QUOTA.seconds}; none for no limit`;

export function parseGrants(values: readonly string[]): Grants {
  const grants: Grants = {};
  for (const value of values) {
    const [resource = '', accesses = ''] = value.split(':');
    if (!GRANTS.includes(resource)) throw new UsageError(`unknown resource in --grant ${value}`);
    const list = accesses.split(',').map((a) => a.trim().toUpperCase());
    for (const access of list) if (!ACCESSES.includes(access as Access)) throw new UsageError(`unknown access in --grant ${value}`);
    grants[resource] = [...new Set([...(grants[resource] ?? []), ...(list as Access[])])];
  }
  return grants;
}

/** A quota's text that is none is how the command was called. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { label: { type: 'string' }, grant: { type: 'string', multiple: true }, superadmin: { type: 'boolean' }, quota: { type: 'string' }, help: { type: 'boolean' } },
  });
  const [command, argument, quotaText] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const local = await connectToTable();
  try {
    switch (command) {
      case 'create': {
        if (!values.label) throw new UsageError('create needs --label');
        const grants = parseGrants(values.grant ?? []);
        if (!values.superadmin && Object.keys(grants).length === 0) throw new UsageError('create needs --superadmin or at least one --grant');
        const quota = values.quota === undefined ? DEFAULT_QUOTA : asUsage(() => parseQuota(values.quota as string));
        console.log(JSON.stringify(await createApiKey({ label: values.label, superadmin: values.superadmin ?? false, grants, ...(quota ? { quota } : {}) })));
        return 0;
      }
      case 'quota': {
        if (!argument || !quotaText) throw new UsageError('quota needs the API key and N/SECONDS or none');
        const quota = asUsage(() => parseQuota(quotaText));
        if (!(await setApiKeyQuota(argument, quota))) {
          console.error(`no API key ${argument}`);
          return 1;
        }
        console.log(JSON.stringify({ apiKey: argument, quota }));
        return 0;
      }
      case 'list':
        console.log(JSON.stringify(await listApiKeys(), null, 2));
        return 0;
      case 'revoke':
        if (!argument) throw new UsageError('revoke needs the API key');
        if (!(await revokeApiKey(argument))) {
          console.error(`no API key ${argument}`);
          return 1;
        }
        console.log(JSON.stringify({ revoked: argument }));
        return 0;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    await local?.stop();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(failureText('', error, USAGE));
    process.exit(isUsageError(error) ? 2 : 1);
  },
);
