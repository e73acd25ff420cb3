/**
 * The API keys a deployed stage makes for its own checks (docs/deploying.md): the pre-traffic hook's,
 * which may view every resource and change none, and, on a stage that asks for it (the pipeline's
 * Beta), the smoke check's, which may make and delete tax rules. Each is kept in a Secrets Manager
 * secret of the stage that CloudFormation generates, as 73 uppercase hex characters: the API key (25)
 * then its secure key (48). The migrations custom resource writes each key into the table with its
 * profile (lib/deploy/migrations-resource.ts) before any function of a release takes traffic; whoever
 * may read the secret holds the key, and no template, log or answer ever shows it. No table here:
 * the pre-traffic hook bundles this module.
 */
import type { KeyProfile } from '../api-keys/index.js';
import { readSecretString } from '../secrets.js';
import { type ACCESSES, GRANTS } from '../routes.js';

/** The stage keys, by the name the stack and the custom resource give them. */
export const STAGE_KEYS = {
  /** The pre-traffic hook's: it views every resource, so that a new version's reads answer their success, and may change nothing. */
  releaseCheck: {
    label: 'release check',
    superadmin: false,
    grants: Object.fromEntries(GRANTS.map((grant) => [grant, ['VIEW']])),
    namedBy: { name: "the stage's ReleaseCheckKey secret", instead: 'give the stage a new secret (rename its construct), whose key the deploy makes' },
  },
  /** `npm run smoke`'s (lib/cli/smoke.ts): a tax rule made, read and deleted. */
  smoke: {
    label: 'smoke check',
    superadmin: false,
    grants: { tax: ['VIEW', 'CREATE', 'DELETE'] },
    namedBy: { name: "the stage's SmokeKey secret", instead: 'give the stage a new secret (rename its construct), whose key the deploy makes' },
  },
} satisfies Record<string, KeyProfile & { grants: Partial<Record<(typeof GRANTS)[number], Array<(typeof ACCESSES)[number]>>> }>;

export type StageKeyName = keyof typeof STAGE_KEYS;

/** How CloudFormation generates a stage key's secret (Secrets Manager's GenerateSecretString): 73 characters of 0-9 and A-F. */
export const STAGE_KEY_SECRET = { passwordLength: 73, excludeLowercase: true, excludePunctuation: true, includeSpace: false, excludeCharacters: 'GHIJKLMNOPQRSTUVWXYZ' } as const;

/** A stage key, as its secret holds it. */
export interface StageKey {
  apiKey: string;
  secureKey: string;
}

/** A stage key's API key and secure key, from its secret; anything else in the secret is an error that says what it should hold. */
export function stageKeyOf(secret: string): StageKey {
  if (!/^[0-9A-F]{73}$/.test(secret)) throw new Error("a stage key's secret holds 73 uppercase hex characters: the API key (25), then its secure key (48)");
  return { apiKey: secret.slice(0, 25), secureKey: secret.slice(25) };
}

/** A stage key's secret, read at deploy time (the migrations) or release time (the hook): the SDK's own retries. */
export const readSecret = (secretId: string): Promise<string> => readSecretString(secretId, { maxAttempts: 3 });
