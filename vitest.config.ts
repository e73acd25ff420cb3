import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files (a full run's report on this 2-core machine, 2026-11-29), longest first. Without a cache of past durations (a fresh clone, CI) vitest
 * starts the largest files first, and these, small ones among them, then started last and ran
 * alone for minutes at the end: started first, the workers end together.
 */
const LONGEST_FILES = [
  'test/sam.test.ts',
  'test/readme-sessions.test.ts',
  'test/construct-library.test.ts',
  'test/durable-answers.test.ts',
  'test/client.test.ts',
  'test/crash-recovery.test.ts',
  'test/import-update.test.ts',
  'test/artifact.test.ts',
  'test/import-beside-traffic.test.ts',
  'test/one-secret-per-table.test.ts',
  'test/customers.test.ts',
  'test/local-runtime.test.ts',
  'test/smoke.test.ts',
  'test/tax-rule-limit.test.ts',
  'test/change-placer.test.ts',
  'test/import.test.ts',
  'test/webhook-isolation.test.ts',
  'test/changes.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const found = LONGEST_FILES.findIndex((name) => file.moduleId.endsWith(name));
      return found === -1 ? LONGEST_FILES.length : found;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real SAM CLI's test runs by `npm run test:sam` (vitest.sam.config.ts): it needs Docker.
    exclude: ['test/sam-cli/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/table-per-file.ts'],
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // Test files mostly wait (on DynamoDB Local, MariaDB, Chromium, child processes): on this 2-core
    // machine a third worker takes the suite well under the two workers' time. (It was undone once
    // when a test of 20 writers of one item ran out of retries under the load; retries are now
    // bounded by the request's budget.)
    maxWorkers: Math.max(availableParallelism(), 3),
    // Sized for a loaded runner (beside two CPU-bound processes, a test takes 2 to 3 times as long):
    // a time-out here says a test hangs, never how fast this machine is (npm run bench says that).
    testTimeout: 180_000,
    hookTimeout: 300_000,
    env: {
      // Logs are on, and kept by test/support/table-per-file.ts, which checks that none carries a secret.
      STORE_LOG_LEVEL: 'info',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
