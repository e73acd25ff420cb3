/**
 * Runs before each test file: a fresh table, set up as `npm start` would, in the shared DynamoDB
 * Local — for every file but the unit tests (test/unit/) that do not ask for one (file-table.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, vi } from 'vitest';
import { logLines, passwordsSent, responseLog, signsSent } from './seen.js';
import { tableWanted } from './file-table.js';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.STORE_TABLE_NAME = `test-${randomUUID()}`;
// Each file's processes sign, fingerprint and seal under a secret of its own (there is no default: lib/secrets.ts).
process.env.STORE_SECRET ??= randomBytes(32).toString('hex');

/** Whether this file has a table: the unit tests' files only when they ask (their code loaded before this hook runs). */
let hasTable = false;
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's fixtures from its first argument's pattern; this one takes none, only the suite (the second).
beforeAll(async ({}, suite) => {
  hasTable = !suite.file.filepath.includes('/test/unit/') || tableWanted();
  // Loaded only for a table: a unit test of a pure module pays for none of it.
  if (hasTable) await (await import('../../lib/local/setup.js')).setUpTable();
});

/** Every log line of this file's requests (lib/log.ts writes them to stdout), kept here rather than printed. */
const write = process.stdout.write.bind(process.stdout);
vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
  const text = String(chunk);
  if (!text.startsWith('{"level":')) return write(chunk, ...rest);
  logLines.push(...text.trim().split('\n'));
  return true;
}) as typeof process.stdout.write);

/** Every 40-character window of the text's runs of hex digits: where a sign (HMAC-SHA1, hex) could be. */
function* hexWindows(text: string): Generator<string> {
  for (const [run] of text.matchAll(/[0-9a-f]{40,}/gi)) for (let i = 0; i + 40 <= run.length; i++) yield run.slice(i, i + 40).toLowerCase();
}

/** No response and no log line of any test may carry a password, a password hash, a secure key or a sign. */
afterAll(async () => {
  // A file without a table made no key: nothing of one to look for.
  const secureKey = hasTable ? (await (await import('./api.js')).superadminKey()).secureKey : undefined;
  // Signs are looked up by the hex in a text rather than searched one by one: a file of generated
  // requests sends thousands of them, and every text times every sign took seconds.
  const hexSigns = new Set([...signsSent].filter((sign) => /^[0-9a-f]{40}$/i.test(sign)).map((sign) => sign.toLowerCase()));
  const secrets = [...passwordsSent, ...(secureKey ? [secureKey] : []), ...[...signsSent].filter((sign) => !hexSigns.has(sign.toLowerCase()))];
  const carriesSign = (text: string) => [...hexWindows(text)].some((window) => hexSigns.has(window));
  const leaking = (text: string) => /\$argon2|\$2[aby]\$\d\d\$|passwordHash|secureKey/i.test(text) || secrets.some((secret) => text.includes(secret)) || carriesSign(text);
  expect(responseLog.filter(leaking)).toEqual([]);
  expect(logLines.filter(leaking)).toEqual([]);
});
