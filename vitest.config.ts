import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real SAM CLI's test runs by `npm run test:sam` (vitest.sam.config.ts): it needs Docker.
    exclude: ['test/sam-cli/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/table-per-file.ts'],
    pool: 'forks',
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
