/**
 * One secret per table (docs/api-keys.md): the table remembers a fingerprint of the server secret that
 * seals its items (a MAC under a key derived from it, never the secret), written by the first process
 * that works on it. `npm start`, every tool and `npm run sam` compare theirs with it before they write
 * or serve: a process with another secret would seal keys that the server cannot open and sign
 * cursors it refuses, so it stops at once, saying which secret sealed the table.
 */
import { createHmac } from 'node:crypto';
import { tableName } from '../db/client.js';
import type { Key } from '../db/keys.js';
import { readItem } from '../db/items.js';
import { ABSENT, putIf } from '../db/transactions.js';
import { serverKey } from '../secrets.js';
import { secretSource } from './server-secret.js';

const SECRET_RECORD: Key = { pk: 'SETUP', sk: 'SECRET' };

const secretFingerprint = async (): Promise<string> =>
  createHmac('sha256', await serverKey('table-fingerprint'))
    .update('store-api table secret')
    .digest('hex');

export class SecretMismatch extends Error {
  constructor(sealedBy: string, theirs: string, ours: string) {
    super(
      `the table ${tableName()} is sealed under another server secret than this process's: ` +
        `it was sealed under ${sealedBy} (fingerprint ${theirs.slice(0, 12)}), this process has ${secretSource()} (fingerprint ${ours.slice(0, 12)}). ` +
        `Pass the table's own: DATA_DIR=<the data dir of the npm start that made it> (its file "secret"), or STORE_SECRET=<that secret>. Nothing was written.`,
    );
    this.name = 'SecretMismatch';
  }
}

/** Refuses (SecretMismatch) when the table was sealed under another secret; records this one when it has none yet. */
export async function checkTableSecret(): Promise<void> {
  const ours = await secretFingerprint();
  let record = await readItem(SECRET_RECORD);
  if (!record) {
    const taken = await putIf({ ...SECRET_RECORD, fingerprint: ours, sealedBy: secretSource() }, ABSENT);
    if (taken.written) return;
    record = taken.found ?? (await readItem(SECRET_RECORD));
  }
  if (record?.fingerprint !== ours) throw new SecretMismatch(String(record?.sealedBy), String(record?.fingerprint), ours);
}
