/**
 * The local runtime's password hashes in worker threads (lib/local/password-workers.ts): the same
 * Argon2id, with the salt and parameters lib/customers/password.ts gives, spread over the workers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMETERS, hashPassword, usePasswordHasher, verifyPassword } from '../../lib/customers/password.js';
import { startPasswordWorkers } from '../../lib/local/password-workers.js';

const pool = startPasswordWorkers(2);
afterAll(() => pool.close());

describe('password hashes in worker threads', () => {
  it('are the Argon2id hashes of the project, each verifying its own password only', async () => {
    usePasswordHasher(pool.hash);
    const hashes = await Promise.all(['first secret', 'second secret', 'third secret', 'fourth secret'].map((password) => hashPassword(password)));
    for (const hash of hashes) expect(hash).toMatch(new RegExp(`^\\$argon2id\\$v=19\\$m=${ARGON2_PARAMETERS.memorySize},t=${ARGON2_PARAMETERS.iterations},p=1\\$`));
    expect(await verifyPassword('second secret', hashes[1])).toEqual({ matches: true, needsRehash: false });
    expect((await verifyPassword('first secret', hashes[1])).matches).toBe(false);
  });

  it('go to the least busy worker: hashes asked at once are spread over them', async () => {
    const before = [...pool.handed];
    const salt = new Uint8Array(16);
    await Promise.all(Array.from({ length: 6 }, (_, k) => pool.hash({ password: `p${k}`, salt, ...ARGON2_PARAMETERS })));
    expect(pool.handed.map((count, k) => count - before[k]!)).toEqual([3, 3]);
  });
});
