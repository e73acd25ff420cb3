/**
 * The migrations as a CloudFormation custom resource (CONTRACT §13): on Create and Update it runs
 * the table's pending migrations (lib/migrations/) and answers SUCCESS with the steps it ran; a step
 * that fails answers FAILED with the step's reason, which fails the deploy before any alias shifts
 * (every alias depends on this resource). Delete does nothing: migrations are expand-only, and the
 * table outlives the stack. The answer goes to CloudFormation's pre-signed ResponseURL, as its
 * custom resource protocol says.
 */
import { log } from '../log.js';
import { runMigrations } from '../migrations/run.js';
import { MIGRATIONS, type MigrationStep } from '../migrations/steps.js';

export interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
  ResourceProperties?: Record<string, unknown>;
}

/** One physical resource for the life of the stack: an Update never replaces it. */
const PHYSICAL_ID = 'store-api-migrations';
/** CloudFormation keeps at most 4 KB of an answer; a reason is cut to fit. */
const REASON_BYTES = 1_000;

type Outcome = { Status: 'SUCCESS'; Data: Record<string, string> } | { Status: 'FAILED'; Reason: string };

async function outcomeOf(event: CustomResourceEvent, steps: readonly MigrationStep[]): Promise<Outcome> {
  if (event.RequestType === 'Delete') return { Status: 'SUCCESS', Data: { Ran: '' } };
  try {
    const run = await runMigrations({ steps });
    for (const conflict of run.conflicts) log('warn', 'migration left a record as it was: rename one of the two', { conflict });
    return { Status: 'SUCCESS', Data: { Ran: run.ran.join(','), Conflicts: String(run.conflicts.length) } };
  } catch (error) {
    return { Status: 'FAILED', Reason: (error as Error).message.slice(0, REASON_BYTES) };
  }
}

/** Runs the event with the table's migrations (`steps`: tests) and answers CloudFormation; resolves once it has been answered. */
export async function handleMigrationsEvent(event: CustomResourceEvent, steps: readonly MigrationStep[] = MIGRATIONS): Promise<Outcome> {
  const outcome = await outcomeOf(event, steps);
  log(outcome.Status === 'SUCCESS' ? 'info' : 'error', 'migrations', { requestType: event.RequestType, ...outcome });
  const body = JSON.stringify({
    ...outcome,
    ...(outcome.Status === 'SUCCESS' ? { Reason: 'migrated' } : {}),
    PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  // The URL is pre-signed for a PUT with no content type.
  const answered = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!answered.ok) throw new Error(`CloudFormation's response URL answered ${answered.status}`);
  return outcome;
}
