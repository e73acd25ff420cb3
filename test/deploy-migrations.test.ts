/**
 * Migrations on deploy (docs/deploying.md): the custom resource's handlers for CDK's Provider framework,
 * called as the framework calls them, against this file's table on DynamoDB Local. onEvent answers
 * at once; isComplete runs the pending steps the template names while its invocation has time, says
 * complete once none is left, and throws a failing step's reason. A rollback's Update, which names
 * the release rolled back to, runs nothing and succeeds, whatever steps the code knows.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler, isComplete } from '../functions/deploy/migrate.js';
import { findActiveKey } from '../lib/api-keys/index.js';
import { db, tableName } from '../lib/db/client.js';
import { migrationsComplete, PHYSICAL_ID, RUN_DEADLINE_MS, STEP_RESERVE_MS, type CustomResourceEvent } from '../lib/deploy/migrations-resource.js';
import { MIGRATIONS, type MigrationStep } from '../lib/migrations/steps.js';

const named = (steps: readonly MigrationStep[]) => steps.map((step) => step.id).join(',');
const event = (RequestType: CustomResourceEvent['RequestType'], steps: readonly MigrationStep[] = MIGRATIONS, oldSteps?: readonly MigrationStep[]): CustomResourceEvent => ({
  RequestType,
  ...(RequestType === 'Create' ? {} : { PhysicalResourceId: PHYSICAL_ID }),
  ResourceProperties: { Steps: named(steps) },
  ...(oldSteps ? { OldResourceProperties: { Steps: named(oldSteps) } } : {}),
});
/** An invocation with 15 minutes ahead of it, as Lambda's context gives them. */
const context = { getRemainingTimeInMillis: () => 15 * 60_000 } as Parameters<typeof isComplete>[1];

const recorded = async () => ((await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'SETUP', sk: 'MIGRATIONS' } }))).Item?.ran as Set<string> | undefined) ?? new Set<string>();

describe('the migrations custom resource', () => {
  it('answers onEvent at once, runs the pending steps in isComplete, none on the Update that follows, and nothing on Delete', async () => {
    // A table whose record of migrations is gone, as one from before migrations were recorded.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: 'SETUP', sk: 'MIGRATIONS' } }));
    expect(await handler(event('Create'))).toEqual({ PhysicalResourceId: PHYSICAL_ID });
    expect([...(await recorded())]).toEqual([]);
    expect(await isComplete(event('Create'), context)).toEqual({ IsComplete: true, Data: { Ran: named(MIGRATIONS), Conflicts: '0', StageKeys: '' } });
    expect([...(await recorded())].sort()).toEqual(MIGRATIONS.map((step) => step.id));

    expect(await isComplete(event('Update'), context)).toEqual({ IsComplete: true, Data: { Ran: '', Conflicts: '0', StageKeys: '' } });
    expect(await handler(event('Delete'))).toEqual({ PhysicalResourceId: PHYSICAL_ID });
    expect(await isComplete(event('Delete'), context)).toEqual({ IsComplete: true });
  });

  it('runs a step only while the invocation leaves room for one, and goes on where it stopped when called again', async () => {
    const later = [
      { id: '900-later-a', up: () => Promise.resolve() },
      { id: '901-later-b', up: () => Promise.resolve() },
    ];
    const steps = [...MIGRATIONS, ...later];
    let left = STEP_RESERVE_MS + 1;
    // Room for one step: the first runs, then time is short.
    const first = await migrationsComplete(event('Update', steps), () => (left -= 1), { steps });
    expect(first).toEqual({ IsComplete: false });
    expect((await recorded()).has('900-later-a')).toBe(true);
    expect((await recorded()).has('901-later-b')).toBe(false);
    expect(await migrationsComplete(event('Update', steps), () => 15 * 60_000, { steps })).toEqual({ IsComplete: true, Data: { Ran: '901-later-b', Conflicts: '0', StageKeys: '' } });
  });

  it("fails the deploy, saying so, once its run passes the deadline within CloudFormation's hour; the next deploy goes on from there", async () => {
    const later = [
      { id: '910-later-c', up: () => Promise.resolve() },
      { id: '911-later-d', up: () => Promise.resolve() },
    ];
    const steps = [...MIGRATIONS, ...later];
    const deploy = (RequestId: string) => ({ ...event('Update', steps), RequestId });
    const started = Date.UTC(2026, 10, 29, 12);
    let left = STEP_RESERVE_MS + 1;
    // The first call notes the run's start and has room for one step.
    expect(await migrationsComplete(deploy('deploy-1'), () => (left -= 1), { steps, now: () => started })).toEqual({ IsComplete: false });
    expect((await recorded()).has('910-later-c')).toBe(true);
    // Called again near the deadline: plenty of invocation left, but not of the run.
    const late = migrationsComplete(deploy('deploy-1'), () => 15 * 60_000, { steps, now: () => started + RUN_DEADLINE_MS - 30_000 });
    await expect(late).rejects.toThrow(/did not finish within 50 minutes of the deploy's start \(2026-11-29T12:00:00\.000Z\): step 911-later-d/);
    expect((await recorded()).has('911-later-d')).toBe(false);
    // Another deploy is another run, with its own hour.
    expect(await migrationsComplete(deploy('deploy-2'), () => 15 * 60_000, { steps, now: () => started + 2 * 3_600_000 })).toEqual({
      IsComplete: true,
      Data: { Ran: '911-later-d', Conflicts: '0', StageKeys: '' },
    });
  });

  it("fails with the failing step's reason, keeping the steps before it recorded; the rollback's Update then runs nothing and succeeds", async () => {
    const failing = { id: '999-fails-for-the-test', up: () => Promise.reject(new Error('a record could not be read')) };
    const later = { id: '1000-never-reached', up: () => Promise.resolve() };
    const release = [...MIGRATIONS, failing, later];
    await expect(migrationsComplete(event('Update', release, MIGRATIONS), () => 15 * 60_000, { steps: release })).rejects.toThrow(
      'migration 999-fails-for-the-test failed: Error: a record could not be read',
    );
    const ran = await recorded();
    expect(ran.has('999-fails-for-the-test')).toBe(false);
    expect(ran.has('1000-never-reached')).toBe(false);
    expect(ran.has('005-sealed-secrets')).toBe(true);
    // CloudFormation rolls back: an Update naming the former release's steps, with the new code still deployed.
    expect(await migrationsComplete(event('Update', MIGRATIONS, release), () => 15 * 60_000, { steps: release })).toEqual({ IsComplete: true, Data: { Ran: '', Conflicts: '0', StageKeys: '' } });
  });

  it("makes the stage's own keys from their secrets once the steps have run, each with its profile, and makes them again as they should be", async () => {
    const secrets: Record<string, string> = { 'arn:release-check': 'A'.repeat(25) + 'B'.repeat(48), 'arn:smoke': 'C'.repeat(25) + 'D'.repeat(48) };
    const read = async (secretId: string) => secrets[secretId]!;
    const withKeys: CustomResourceEvent = { ...event('Update'), ResourceProperties: { Steps: named(MIGRATIONS), StageKeys: { releaseCheck: 'arn:release-check', smoke: 'arn:smoke' } } };
    expect(await migrationsComplete(withKeys, () => 15 * 60_000, { read })).toEqual({ IsComplete: true, Data: { Ran: '', Conflicts: '0', StageKeys: 'releaseCheck,smoke' } });
    const releaseCheck = await findActiveKey('A'.repeat(25));
    expect(releaseCheck?.secureKey).toBe('B'.repeat(48));
    expect(releaseCheck?.record).toMatchObject({ label: 'release check', superadmin: false, grants: { tax: ['VIEW'], customer: ['VIEW'], product: ['VIEW'], category: ['VIEW'] } });
    expect((await findActiveKey('C'.repeat(25)))?.record).toMatchObject({ label: 'smoke check', superadmin: false, grants: { tax: ['VIEW', 'CREATE', 'DELETE'] } });
    // A secret that is not a key fails the deploy, before any alias shifts, saying what it should hold.
    secrets['arn:smoke'] = 'not a key';
    await expect(migrationsComplete(withKeys, () => 15 * 60_000, { read })).rejects.toThrow("a stage key's secret holds 73 uppercase hex characters");
  });
});
