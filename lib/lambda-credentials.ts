/**
 * The credentials of every bundled AWS SDK client and of the search index's signer, in place of the
 * SDK's default chain (`@aws-sdk/credential-provider-node`, which esbuild resolves here:
 * `BUNDLE.substitutes`, infra/constructs/bundled-function.ts). Lambda hands a function its role's
 * credentials in one of two ways: in its environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), as it does by default, or from a local credentials endpoint
 * (AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN), as it does when the
 * function runs from a snapshot (SnapStart) or elsewhere than its usual sandbox. Both are read, in
 * that order, as the default chain reads them. Its other sources (profiles, SSO, the instance
 * metadata service, web identity) and the STS and SSO clients they bring weigh about 130 KiB that
 * every cold start would parse for nothing: Lambda never uses them. `sam local` passes credentials in
 * the environment; `npm start` and the tests run the sources unbundled, with the default chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';
import { chain } from '@smithy/core/config';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * The SDK clients' `credentialDefaultProvider`: the environment's credentials, else the credentials
 * endpoint's (its provider made when first asked: `fromHttp` refuses at once without an endpoint).
 * The endpoint's provider weighs 7.5 KiB of every bundle; loading it by `import()` weighed 10 (esbuild
 * wraps what it shares with the bundle), so it is imported as the rest.
 */
export const defaultProvider = (_init?: unknown): AwsCredentialIdentityProvider => chain(fromEnv(), () => fromHttp()());

/** Credentials renewed this long before they expire (the SDK's own margin). */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * A provider asked once, then again only when what it gave is about to expire: what a signer that
 * is not an SDK client (the search index's) needs, since every request asks for credentials.
 */
export function cachedCredentials(provider: AwsCredentialIdentityProvider): AwsCredentialIdentityProvider {
  let current: Promise<AwsCredentialIdentity> | undefined;
  const fresh = (identity: AwsCredentialIdentity) => !identity.expiration || identity.expiration.getTime() - Date.now() > RENEW_BEFORE_MS;
  return async () => {
    const held = current && (await current.catch(() => undefined));
    if (held && fresh(held)) return held;
    current = provider();
    current.catch(() => {
      current = undefined;
    });
    return current;
  };
}
