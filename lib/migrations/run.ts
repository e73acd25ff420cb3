/**
 * Runs the table's migrations (steps.ts) and records which ran: `SETUP / MIGRATIONS` holds the set
 * of their ids. Only the pending ones run, in order; each is recorded once it has run whole, so a
 * run cut off is taken up again by the next (the steps are idempotent). A step that left records it
 * could not migrate (two records that now read as one value: `conflicts`) is not recorded: it runs
 * again next time, until a person has renamed one. A step that throws stops the run: what ran
 * before it stays recorded, and the error names the step.
 */
import { commitOnce, stepsWrite } from '../db/write-plan.js';
import * as v from 'valibot';
import { readItem } from '../db/items.js';
import { defineStored } from '../db/stored.js';
import type { Key } from '../db/keys.js';
import { update } from '../db/transactions.js';
import { emptyMigration, MIGRATIONS, type Migration, type MigrationStep } from './steps.js';

const RECORD: Key = { pk: 'SETUP', sk: 'MIGRATIONS' };
/** What an earlier version wrote once it had migrated a table: every step up to 005 had run. */
const FORMER_MARKER: Key = { pk: 'SETUP', sk: 'MIGRATION' };
const FORMER_VERSION = 'identity-locks+tax-rule-summaries+sharded-counts+job-lanes+sealed-secrets';
/** The record of the steps run (a string set), and the marker an earlier version left. */
const StoredRecord = defineStored('migrations record', { ran: v.optional(v.set(v.string()), () => new Set<string>()) });
const StoredFormerMarker = defineStored('former migration marker', { version: v.optional(v.string()) });

export class MigrationFailed extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(`migration ${step} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`, { cause });
    this.name = 'MigrationFailed';
  }
}

export interface MigrationRun extends Migration {
  /** The steps that ran and were recorded, in order. */
  ran: string[];
}

/** The ids of the steps the table records as run. */
async function migrationsRun(): Promise<Set<string>> {
  const [record, former] = await Promise.all([readItem(RECORD), readItem(FORMER_MARKER)]);
  const ran = new Set(record ? StoredRecord.parse(record).ran : []);
  if (former && StoredFormerMarker.parse(former).version === FORMER_VERSION) for (const step of MIGRATIONS.slice(0, 5)) ran.add(step.id);
  return ran;
}

/** Of `steps`, those the table has not run yet, in order. */
export async function pendingSteps(steps: readonly MigrationStep[]): Promise<MigrationStep[]> {
  const done = await migrationsRun();
  return steps.filter((step) => !done.has(step.id));
}

/** Runs the pending steps (`all`: every step again, for a table restored from an older backup). */
export async function runMigrations(options: { all?: boolean; steps?: readonly MigrationStep[] } = {}): Promise<MigrationRun> {
  const steps = options.steps ?? MIGRATIONS;
  const done = options.all ? new Set<string>() : await migrationsRun();
  const run: MigrationRun = { ...emptyMigration(), ran: [] };
  for (const step of steps) {
    if (done.has(step.id)) continue;
    const conflictsBefore = run.conflicts.length;
    try {
      await step.up(run);
    } catch (error) {
      throw new MigrationFailed(step.id, error);
    }
    if (run.conflicts.length > conflictsBefore) continue;
    await recordRun([step]);
    run.ran.push(step.id);
  }
  return run;
}

/** Records `steps` as run. */
const recordRun = (steps: readonly MigrationStep[]) => commitOnce(stepsWrite(() => [update(RECORD, { update: 'ADD ran :ids', values: { ':ids': new Set(steps.map((step) => step.id)) } })]));

/**
 * Records every step as run without running it: for a table this release has just created, whose
 * every item its own code wrote, so that no step has anything to migrate (each would walk empty
 * collections: about 0.4 s of every `npm start` on a new data dir, and of every test file's table).
 */
export const recordAllRun = (): Promise<void> => recordRun(MIGRATIONS);
