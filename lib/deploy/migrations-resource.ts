/**
 * The migrations as a CloudFormation custom resource (docs/deploying.md), behind CDK's Provider
 * framework: `onEvent` answers at once; `isComplete`, which the framework calls every few seconds
 * until it says so or the total timeout passes, runs the pending migrations one step after another
 * while its invocation has time and the deploy's run its deadline (RUN_DEADLINE_MS), and says
 * complete once none is left; past the deadline it fails, saying so. A step that fails throws with
 * its reason: the framework answers FAILED, which fails the deploy before any alias shifts (every
 * alias depends on this resource).
 *
 * Only the steps the template names (`Steps`) run: a rollback's Update names the steps of the
 * release rolled back to, all run already, so it runs nothing and succeeds, whatever code the
 * function has then (otherwise the failing step would run again and fail the rollback:
 * UPDATE_ROLLBACK_FAILED). Migrations are expand-only, so the table stays usable by both releases.
 * Once every step has run, it makes sure the stage's own keys are in the table (`StageKeys`: a key's
 * name → its secret; lib/deploy/stage-keys.ts). Delete does nothing: the table outlives the stack.
 */
import { log } from '../log.js';
import { pendingSteps, runMigrations } from '../migrations/run.js';
import { MIGRATIONS, type MigrationStep } from '../migrations/steps.js';
import { ensureApiKey } from '../api-keys/index.js';
import { readSecret, STAGE_KEYS, stageKeyOf, type StageKeyName } from './stage-keys.js';
import { ABSENT, putIf } from '../db/transactions.js';

export interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  /** CloudFormation's id of the request: the same in every isComplete call of one deploy. */
  RequestId?: string;
  PhysicalResourceId?: string;
  ResourceProperties?: Record<string, unknown>;
  OldResourceProperties?: Record<string, unknown>;
}

/** One physical resource for the life of the stack: an Update never replaces it. */
export const PHYSICAL_ID = 'store-api-migrations';
/** What a step may take at most is unknown: one starts only while this much of the invocation is left. */
export const STEP_RESERVE_MS = 60_000;

/**
 * How long a deploy's migrations may run, from the first isComplete call of its request: within the
 * Provider framework's total timeout (55 minutes: infra/store-api.ts), itself within CloudFormation's
 * hour for a custom resource (`ServiceTimeout`), so that a run that cannot finish fails the deploy
 * cleanly, saying so, before either of them gives up on it.
 */
export const RUN_DEADLINE_MS = 50 * 60_000;

/** When a request's run of the migrations began: noted by its first isComplete call (kept a day). */
async function runStartedAt(requestId: string, now: number): Promise<number> {
  const noted = await putIf({ pk: 'SETUP', sk: `MIGRATIONS#RUN#${requestId}`, startedAt: now, expiresAt: Math.floor(now / 1000) + 86_400 }, ABSENT);
  return noted.written ? now : Number(noted.found?.startedAt ?? now);
}

/** The framework's onEvent: nothing to do yet (isComplete does the work), the one physical id. */
export async function onMigrationsEvent(event: CustomResourceEvent): Promise<{ PhysicalResourceId: string }> {
  log('info', 'migrations', { requestType: event.RequestType, steps: String(event.ResourceProperties?.Steps ?? '') });
  return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID };
}

/** The steps an event names, in the release's order (`steps`: tests). */
const namedSteps = (event: CustomResourceEvent, steps: readonly MigrationStep[]): MigrationStep[] => {
  const named = new Set(String(event.ResourceProperties?.Steps ?? '').split(','));
  return steps.filter((step) => named.has(step.id));
};

/** What isComplete works with: the release's steps, and how a secret is read (tests give their own). */
export interface MigrationsWork {
  steps?: readonly MigrationStep[];
  read?: (secretId: string) => Promise<string>;
  /** The clock (tests move it). */
  now?: () => number;
}

/**
 * The framework's isComplete: runs the pending steps the event names while `remainingMs()` leaves
 * room for one more, then says whether every one has run; once they have, the stage's keys are made sure of.
 */
export async function migrationsComplete(
  event: CustomResourceEvent,
  remainingMs: () => number,
  { steps = MIGRATIONS, read = readSecret, now = Date.now }: MigrationsWork = {},
): Promise<{ IsComplete: boolean; Data?: Record<string, string> }> {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const startedAt = event.RequestId ? await runStartedAt(event.RequestId, now()) : now();
  const deadline = startedAt + RUN_DEADLINE_MS;
  const left = () => Math.min(remainingMs(), deadline - now());
  const ran: string[] = [];
  let conflicts = 0;
  for (;;) {
    const [next] = await pendingSteps(namedSteps(event, steps));
    if (!next) break;
    if (left() < STEP_RESERVE_MS) {
      if (deadline - now() < STEP_RESERVE_MS)
        throw new Error(
          `the migrations did not finish within ${RUN_DEADLINE_MS / 60_000} minutes of the deploy's start (${new Date(startedAt).toISOString()}): step ${next.id} and those after it have not run. ` +
            'The deploy fails and rolls back; the steps that ran stay done (they only add) and the next deploy goes on from there.',
        );
      log('info', 'migrations: more steps next time', { ran: ran.join(','), next: next.id });
      return { IsComplete: false };
    }
    const run = await runMigrations({ steps: [next] });
    for (const conflict of run.conflicts) log('warn', 'migration left a record as it was: rename one of the two', { conflict });
    conflicts += run.conflicts.length;
    ran.push(...run.ran);
    // A step left with conflicts is not recorded: it runs again on the next deploy, once a person has renamed one.
    if (run.ran.length === 0) break;
  }
  const keys = await ensureStageKeys((event.ResourceProperties?.StageKeys ?? {}) as Partial<Record<StageKeyName, string>>, read);
  log('info', 'migrations complete', { ran: ran.join(','), conflicts, stageKeys: keys.join(',') });
  return { IsComplete: true, Data: { Ran: ran.join(','), Conflicts: String(conflicts), StageKeys: keys.join(',') } };
}

/** Makes sure each named stage key is in the table with its profile, read from its secret (`secrets`: its name → the secret's id). */
export async function ensureStageKeys(secrets: Partial<Record<StageKeyName, string>>, read: (secretId: string) => Promise<string> = readSecret): Promise<StageKeyName[]> {
  const named = Object.entries(secrets).filter((entry): entry is [StageKeyName, string] => entry[0] in STAGE_KEYS && entry[1] !== undefined);
  const names = named.map(([name]) => name);
  for (const [name, secretId] of named) {
    const { apiKey, secureKey } = stageKeyOf(await read(secretId));
    await ensureApiKey(apiKey, secureKey, STAGE_KEYS[name]);
  }
  return names;
}
