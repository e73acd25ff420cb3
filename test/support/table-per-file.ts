/** Runs before each test file: a fresh table, set up as `npm start` would, in the shared DynamoDB Local. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, vi } from 'vitest';
import { setUpTable } from '../../lib/local/setup.js';
import { passwordsSent, responseLog, signsSent, superadminKey } from './api.js';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.STORE_TABLE_NAME = `test-${randomUUID()}`;

beforeAll(() => setUpTable());

/** Every log line of this file's requests, kept here rather than printed (STORE_LOG_LEVEL is info in tests). */
const logLines: string[] = [];
for (const stream of ['log', 'info', 'warn', 'error'] as const) {
  vi.spyOn(console, stream).mockImplementation((...args: unknown[]) => void logLines.push(args.map(String).join(' ')));
}

/** No response and no log line of any test may carry a password, a password hash, a secure key or a sign. */
afterAll(async () => {
  const { secureKey } = await superadminKey();
  const secrets = [...passwordsSent, secureKey, ...signsSent];
  const leaking = (text: string) => /\$argon2|\$2[aby]\$\d\d\$|passwordHash|secureKey/i.test(text) || secrets.some((secret) => text.includes(secret));
  expect(responseLog.filter(leaking)).toEqual([]);
  expect(logLines.filter(leaking)).toEqual([]);
});
