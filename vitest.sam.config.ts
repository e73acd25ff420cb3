/**
 * `npm run test:sam`: `npm run sam` with the real SAM CLI and Docker (test/sam-cli/), on the same
 * setup as `npm test` (a DynamoDB Local, a table per file). SAM CLI on PATH and Docker running:
 * `bash ../shared/tools/sam-local/setup.sh` installs both here (README: sam local).
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({ ...base, test: { ...base.test, include: ['test/sam-cli/**/*.test.ts'], exclude: ['**/node_modules/**'], maxWorkers: 1 } });
