/**
 * Password storage (docs/api.md): Argon2id at the OWASP Password Storage Cheat Sheet's minimum
 * (19 MiB of memory, 2 iterations, 1 lane), computed in WebAssembly (hash-wasm) so the Lambda bundle
 * needs no native addon. The stored string is PHC-formatted, so it carries its own parameters and
 * they can be raised later: a hash made with weaker ones is upgraded at the next successful check.
 * Bcrypt hashes imported from Thelia ($2y$, $2a$, $2b$) verify too and are upgraded the same way.
 */
import { randomBytes } from 'node:crypto';
import { argon2id, argon2Verify } from 'hash-wasm';
import bcrypt from 'bcryptjs';

export const ARGON2_PARAMETERS = { memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;

const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2_PARAMETERS.memorySize},t=${ARGON2_PARAMETERS.iterations},p=${ARGON2_PARAMETERS.parallelism}$`;

/** What an Argon2id hash is computed from: the password, its salt, and the parameters. */
export type Argon2Input = { password: string; salt: Uint8Array } & typeof ARGON2_PARAMETERS;
/** Computes an encoded Argon2id hash. */
export type Argon2Hasher = (input: Argon2Input) => Promise<string>;

/**
 * Here, on the thread that serves: a Lambda container serves one request at a time. The local
 * runtime, whose one process serves every route, hands hashes to worker threads instead
 * (lib/local/password-workers.ts), so that hashing never stalls the other requests.
 */
let computeArgon2: Argon2Hasher = (input) => argon2id({ ...input, outputType: 'encoded' });

/** Computes the hashes of this process with `hasher` from now on (the local runtime's worker threads). */
export function usePasswordHasher(hasher: Argon2Hasher): void {
  computeArgon2 = hasher;
}

export async function hashPassword(password: string): Promise<string> {
  return computeArgon2({ password, salt: randomBytes(16), ...ARGON2_PARAMETERS });
}

export interface Verification {
  matches: boolean;
  /** The hash is of an older scheme or weaker parameters: store a new one. */
  needsRehash: boolean;
}

const BCRYPT = /^\$2[aby]\$\d{2}\$/;

/** Whether a stored hash is bcrypt's (Thelia's), which a successful check replaces. */
export const isBcrypt = (stored: string): boolean => BCRYPT.test(stored);

/**
 * Every check verifies one Argon2id hash and one bcrypt hash, the stored one and a dummy of the other
 * scheme (docs/api.md): a wrong password then takes the same time whether the customer's hash is
 * ours or still Thelia's, and as long as an unknown email (`stored` undefined: both dummies). The cost is one bcrypt
 * verification more per check than strictly needed; a customer's bcrypt hash is replaced at its
 * first successful check.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<Verification> {
  const bcryptStored = stored !== undefined && isBcrypt(stored);
  const argonStored = stored?.startsWith('$argon2id$') === true;
  // PHP's $2y$ is the same algorithm as $2b$.
  const bcryptMatches = await bcrypt.compare(password, bcryptStored ? stored.replace(/^\$2y\$/, '$2b$') : DUMMY_BCRYPT_HASH);
  const argonMatches = await argon2Verify({ password, hash: argonStored ? stored : DUMMY_ARGON2_HASH });
  if (bcryptStored) return { matches: bcryptMatches, needsRehash: bcryptMatches };
  if (argonStored) return { matches: argonMatches, needsRehash: argonMatches && !stored.startsWith(CURRENT_PREFIX) };
  return { matches: false, needsRehash: false };
}

/**
 * The Argon2id side of a check whose stored hash is not Argon2id (an unknown email, a Thelia hash):
 * a well-formed string with the current parameters whose salt and digest are random bytes, so that
 * no password matches it. A constant, because verifying costs the same whatever the digest, and
 * hashing one at init would cost every cold start.
 */
const DUMMY_ARGON2_HASH = `${CURRENT_PREFIX}ru8Zdp+Mnehk29I7ceafgQ$6bOqpd1uXm3UHCk/sDz/W031RRlLM0xMov0ypNLktY8`;

/**
 * The bcrypt side of a check whose stored hash is not bcrypt: a hash of random bytes at Thelia's cost
 * (PHP's `password_hash` default, 10), which no password matches.
 */
const DUMMY_BCRYPT_HASH = '$2b$10$1mcXZDCoFfrErZQiANUSdevCLCSbT9lK1mdtHAIneUs65p7b1ltr.';
