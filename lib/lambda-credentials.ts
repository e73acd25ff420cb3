/**
 * The credentials of every bundled AWS SDK client, in place of the SDK's default chain
 * (`@aws-sdk/credential-provider-node`, which esbuild resolves here: `BUNDLE.substitutes`,
 * infra/constructs/bundled-function.ts). Lambda gives a function its role's credentials in its
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which is where the
 * default chain looks first; its other sources (profiles, SSO, the container and instance metadata
 * services, web identity) and the STS and SSO clients they bring weigh about 130 KiB, which every
 * cold start parsed for nothing. `sam local` passes credentials the same way; `npm start` and the
 * tests run the sources unbundled, with the default chain. The search index's signer reads the same
 * variables (lib/opensearch/sign.ts).
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The SDK clients' `credentialDefaultProvider`: the environment's credentials, whatever it is given. */
export const defaultProvider = (_init?: unknown) => fromEnv();
