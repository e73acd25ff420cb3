/**
 * AWS Signature Version 4 for the requests to OpenSearch Serverless (service `aoss`), by hand on
 * node:crypto: the SDK's signer and credential chain would add some 10 KiB to every list's bundle for
 * four HMACs. Credentials are the function's role's, from the environment Lambda sets. Checked
 * against the SDK's signer in test/unit/opensearch-sign.test.ts.
 */
import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface SignedRequest {
  method: string;
  /** The path, as sent (no query string: the index's requests have none). */
  path: string;
  host: string;
  body: string;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** Each segment encoded as SigV4 wants it (RFC 3986 unreserved characters kept), and again, as every service but S3 wants. */
const canonicalPath = (path: string) =>
  path
    .split('/')
    .map((segment) => encodeURIComponent(encodeURIComponent(decodeURIComponent(segment)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)))
    .join('/');

/** The role's credentials, as Lambda gives them. */
export function credentialsFromEnvironment(): Credentials {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = process.env;
  if (!accessKeyId || !secretAccessKey) throw new Error('no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) to sign the search index requests with');
  return { accessKeyId, secretAccessKey, sessionToken };
}

/** The headers that sign a request: host, date, payload hash, token, and the Authorization itself. */
export function signatureHeaders(request: SignedRequest, credentials: Credentials, region: string, service = 'aoss', now = new Date()): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(request.body);
  const headers: Record<string, string> = {
    host: request.host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonical = [request.method, canonicalPath(request.path), '', ...names.map((name) => `${name}:${(headers[name] ?? '').trim()}`), '', names.join(';'), payloadHash].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}
