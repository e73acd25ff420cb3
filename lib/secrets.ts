/**
 * Server-side keys, derived per purpose from STORE_SECRET: the list cursors' signatures and the
 * idempotency fingerprints. The CDK stack generates STORE_SECRET (Secrets Manager) and `npm start`
 * keeps one in its data dir. Without it (tests) a key derived from the table's name is used: cursors
 * are still bound to their list and fingerprints still compare, but the key is guessable.
 */
import { createHmac } from 'node:crypto';

export function serverKey(purpose: 'cursor' | 'idempotency'): Buffer {
  const root = process.env.STORE_SECRET ?? `store-api secret for table ${process.env.STORE_TABLE_NAME ?? 'store'}`;
  return createHmac('sha256', root).update(purpose).digest();
}
