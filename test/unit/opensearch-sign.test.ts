/**
 * The search index's signer (lib/opensearch/sign.ts) against AWS's published SigV4 test suite
 * (`get-vanilla`, `post-vanilla`: the suite's credentials, date, region and service), and the
 * payload's hash it sends for OpenSearch Serverless: the body's own, signed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestSigner } from '../../lib/opensearch/sign.js';

const suite = { credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }, region: 'us-east-1', service: 'service' };
const suiteDate = new Date('2015-08-30T12:36:00Z');

describe('SigV4 for the search index', () => {
  it.each([
    ['GET', 'get-vanilla', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'],
    ['POST', 'post-vanilla', '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b'],
  ])('signs %s / as the published suite vector %s does', async (method, _vector, signature) => {
    const sign = requestSigner({ ...suite, payloadHashHeader: false });
    const headers = await sign({ method, path: '/', host: 'example.amazonaws.com', body: '' }, suiteDate);
    expect(headers.authorization).toBe(`AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`);
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
  });

  it("sends and signs the body's SHA-256 and the session token, as OpenSearch Serverless requires", async () => {
    const body = '{"index":{"_index":"store-products","_id":"1"}}\n{"id":1}\n';
    const sign = requestSigner({ credentials: { ...suite.credentials, sessionToken: 'session-token' }, region: 'eu-west-1' });
    const headers = await sign({ method: 'POST', path: '/_bulk', host: 'abc123.eu-west-1.aoss.amazonaws.com', body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(headers['x-amz-content-sha256']).toBe(createHash('sha256').update(body).digest('hex'));
    expect(headers['x-amz-security-token']).toBe('session-token');
    expect(headers.authorization).toMatch(/\/eu-west-1\/aoss\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/);
  });
});
