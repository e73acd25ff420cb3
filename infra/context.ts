/**
 * The CDK app's context (cdk.json or -c), read and checked in one place:
 *   stage         name suffix of the stacks (default "dev"): StoreApi-<stage>, -Routes, -Api
 *   disposable    "true" lets the table be destroyed with the stack (throwaway stages say so;
 *                 without it the table is retained, with PITR and deletion protection)
 *   alarmEmail    an email the alarms notify (through an SNS topic); none without it
 *   logLevel      the functions' application log level (default INFO)
 *   corsOrigins   comma-separated origins; CORS is off without them
 *   changeRetentionDays  how long changes are kept (docs/changes-events-webhooks.md; default 365): the TTL the writes give them
 *   throttleRate, throttleBurst  the HTTP API stage's throttle, for all callers together: requests a
 *                 second (default 100) and the burst above it (default 200)
 *   deployment    how a release shifts each function's alias: canary (default), linear or all-at-once
 *                 (the default of a disposable stage)
 *   layout        `single`: every resource in one stack, for SAM CLI (`npm run sam` synthesizes so);
 *                 never for a deploy (default: three stacks, each within CloudFormation's limits)
 *   search        `opensearch`: the search index on AWS (docs/lists.md), an OpenSearch Serverless
 *                 collection and its indexer; without it, a list only the index answers is a 400
 *                 that names this option (docs/deploying.md: its monthly floor)
 *   smokeKey      "true": the stage makes a key for `npm run smoke` and keeps it in a secret (its
 *                 SmokeKeySecretArn output): a pipeline's smoke check then works from the first deploy
 *   architecture  the functions' CPU: arm64 (the default, for deploys: cheaper per ms on Lambda) or
 *                 x86_64 (what `npm run sam` asks for on an x86_64 host, whose Docker cannot run arm64
 *                 images without qemu)
 */
import { ARCHITECTURES, type FunctionArchitecture } from './constructs/function-facts.js';
import { DEPLOYMENTS } from './constructs/gradual-release.js';
import type { StoreApiProps } from './store-api.js';

export type { FunctionArchitecture };
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** The architecture of this machine, as Lambda names it. */
export const hostArchitecture = (arch: string = process.arch): FunctionArchitecture => (arch === 'arm64' ? 'arm64' : 'x86_64');

/** The store's name and properties from the app's context; a value it cannot take is an error naming the key. */
export function storeFromContext(context: (key: string) => unknown): { name: string; props: StoreApiProps } {
  const text = (key: string): string | undefined => {
    const value = context(key);
    return value === undefined || value === null ? undefined : String(value);
  };
  const logLevel = LOG_LEVELS.find((level) => level === text('logLevel')?.toUpperCase());
  if (text('logLevel') && !logLevel) throw new Error(`-c logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  const architecture = ARCHITECTURES.find((arch) => arch === text('architecture'));
  if (text('architecture') && !architecture) throw new Error(`-c architecture must be one of ${ARCHITECTURES.join(', ')}`);
  const retention = text('changeRetentionDays');
  const changeRetentionDays = retention === undefined ? 365 : Number(retention);
  if (!Number.isFinite(changeRetentionDays) || changeRetentionDays <= 0) throw new Error('-c changeRetentionDays must be a positive number of days');
  const whole = (key: string, fallback: number): number => {
    const value = text(key) === undefined ? fallback : Number(text(key));
    if (!Number.isInteger(value) || value <= 0) throw new Error(`-c ${key} must be a positive whole number`);
    return value;
  };
  const throttle = { rateLimit: whole('throttleRate', 100), burstLimit: whole('throttleBurst', 200) };
  const deployment = DEPLOYMENTS.find((way) => way === text('deployment'));
  if (text('deployment') && !deployment) throw new Error(`-c deployment must be one of ${DEPLOYMENTS.join(', ')}`);
  if (text('layout') && text('layout') !== 'single') throw new Error('-c layout must be single, or unset for three stacks');
  if (text('search') && text('search') !== 'opensearch') throw new Error('-c search must be opensearch, or unset for no search index');
  const alarmEmail = text('alarmEmail');
  const corsOrigins = text('corsOrigins');
  return {
    name: `StoreApi-${text('stage') ?? 'dev'}`,
    props: {
      disposable: text('disposable') === 'true',
      ...(text('smokeKey') === 'true' ? { smokeKey: true } : {}),
      architecture: architecture ?? 'arm64',
      changeRetentionDays,
      throttle,
      ...(deployment ? { deployment } : {}),
      ...(text('layout') === 'single' ? { singleStack: true } : {}),
      ...(text('search') === 'opensearch' ? { search: 'opensearch' as const } : {}),
      ...(alarmEmail ? { alarmEmail } : {}),
      ...(logLevel ? { logLevel } : {}),
      ...(corsOrigins ? { corsOrigins: corsOrigins.split(',') } : {}),
    },
  };
}
