/**
 * The server secret of a data dir (lib/secrets.ts), made on its first use and kept with the data:
 * `npm start` and every tool that works on a local table (`npm run api-key`, `import`, `migrate`,
 * `events`, `sam`) must agree on it, whether they start DynamoDB Local, find the one a running
 * `npm start` wrote down, or are given DYNAMODB_ENDPOINT. STORE_SECRET, when set, wins.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const secretFile = (dataDir: string): string => path.join(dataDir, 'secret');

/** Where this process's secret came from, for a refusal to name (table-secret.ts). */
let source = 'a secret given as STORE_SECRET';
export const secretSource = (): string => source;

export async function useDataDirSecret(dataDir: string): Promise<void> {
  if (process.env.STORE_SECRET) return;
  const file = secretFile(dataDir);
  let secret = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (!secret) {
    await mkdir(dataDir, { recursive: true });
    secret = randomBytes(32).toString('hex');
    // Another process may have made it meanwhile: the first one written is the one.
    await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      secret = (await readFile(file, 'utf8')).trim();
    });
  }
  process.env.STORE_SECRET = secret;
  source = `the secret file of the data dir ${dataDir}`;
}
