/** Runs before each test file: a fresh table, set up as `npm start` would, in the shared DynamoDB Local. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, vi } from 'vitest';
import { setUpTable } from '../../lib/local/setup.js';
import { logLines, passwordsSent, responseLog, signsSent, superadminKey } from './api.js';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.STORE_TABLE_NAME = `test-${randomUUID()}`;

beforeAll(() => setUpTable());

/** Every log line of this file's requests (lib/log.ts writes them to stdout), kept here rather than printed. */
const write = process.stdout.write.bind(process.stdout);
vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
  const text = String(chunk);
  if (!text.startsWith('{"level":')) return write(chunk, ...rest);
  logLines.push(...text.trim().split('\n'));
  return true;
}) as typeof process.stdout.write);

/** No response and no log line of any test may carry a password, a password hash, a secure key or a sign. */
afterAll(async () => {
  const { secureKey } = await superadminKey();
  const secrets = [...passwordsSent, secureKey, ...signsSent];
  const leaking = (text: string) => /\$argon2|\$2[aby]\$\d\d\$|passwordHash|secureKey/i.test(text) || secrets.some((secret) => text.includes(secret));
  expect(responseLog.filter(leaking)).toEqual([]);
  expect(logLines.filter(leaking)).toEqual([]);
});
