/**
 * AWS Signature Version 4 for the requests to OpenSearch Serverless (service `aoss`): the SDK's own
 * signer (`@smithy/signature-v4`, which every bundle already holds for DynamoDB), with the
 * function's role's credentials (lib/lambda-credentials.ts). The payload's hash is signed and sent
 * (`x-amz-content-sha256`), as OpenSearch Serverless requires.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface SignedRequest {
  method: string;
  /** The path, as sent (no query string: the index's requests have none). */
  path: string;
  host: string;
  body: string;
  headers?: Record<string, string>;
}

export interface SignerOptions {
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  region: string;
  service?: string;
  /** Whether the payload's hash is sent as a signed header (OpenSearch Serverless wants it; the published test vectors have none). */
  payloadHashHeader?: boolean;
}

/** Signs requests: each one's headers with its `authorization`, dated when signed (or `now`). */
export function requestSigner({ credentials, region, service = 'aoss', payloadHashHeader = true }: SignerOptions) {
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256, applyChecksum: payloadHashHeader });
  return async (request: SignedRequest, now?: Date): Promise<Record<string, string>> => {
    const { headers } = await signer.sign(
      { method: request.method, protocol: 'https:', hostname: request.host, path: request.path, query: {}, headers: { host: request.host, ...request.headers }, body: request.body },
      now ? { signingDate: now } : {},
    );
    return headers;
  };
}
