/**
 * The server secret of a data dir (lib/secrets.ts), made on its first use and kept with the data:
 * `npm start` and the tools that work on the same DynamoDB Local (`npm run api-key`, which seals
 * the secure keys it makes) must agree on it. STORE_SECRET, when set, wins.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function useDataDirSecret(dataDir: string): Promise<void> {
  if (process.env.STORE_SECRET) return;
  const file = path.join(dataDir, 'secret');
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
}
