/** Runs before each test file: a fresh table, set up as `npm start` would, in the shared DynamoDB Local. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { setUpTable } from '../../lib/local/setup.js';
import { passwordsSent, responseLog, superadminKey } from './api.js';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.STORE_TABLE_NAME = `test-${randomUUID()}`;

beforeAll(() => setUpTable());

/** No response of any test may carry a password, a password hash or a secure key. */
afterAll(async () => {
  const { secureKey } = await superadminKey();
  const secrets = [...passwordsSent, secureKey];
  const leaks = responseLog.filter(
    (text) => /\$argon2|\$2[aby]\$\d\d\$|passwordHash|secureKey/i.test(text) || secrets.some((secret) => text.includes(secret)),
  );
  expect(leaks).toEqual([]);
});
