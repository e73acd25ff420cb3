/** Our SigV4 (lib/opensearch/sign.ts) signs as the SDK's signer does, for the requests the index sends. */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../lib/opensearch/sign.js';

class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : new Uint8Array(ArrayBuffer.isView(secret) ? secret.buffer : secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : new Uint8Array(ArrayBuffer.isView(data) ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) : data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' };
const now = new Date('2026-11-27T06:30:00.000Z');

describe('SigV4 for the search index', () => {
  it.each([
    ['POST', '/store-products/_search', '{"size":11}'],
    ['PUT', '/store-meta/_doc/position', '{"n":3,"i":0}'],
    ['GET', '/store-meta/_doc/position', ''],
    ['POST', '/_bulk', '{"index":{"_index":"store-products","_id":"1"}}\n{"id":1}\n'],
  ])('signs %s %s as the SDK does', async (method, path, body) => {
    const host = 'abc123.eu-west-1.aoss.amazonaws.com';
    const ours = signatureHeaders({ method, path, host, body }, credentials, 'eu-west-1', 'aoss', now);
    const sdk = await new SignatureV4({ service: 'aoss', region: 'eu-west-1', credentials, sha256: Sha256 }).sign(
      { method, protocol: 'https:', hostname: host, path, headers: { host, 'x-amz-content-sha256': ours['x-amz-content-sha256']! }, body },
      { signingDate: now },
    );
    expect(ours.authorization).toBe(sdk.headers.authorization);
    expect(ours['x-amz-date']).toBe(sdk.headers['x-amz-date']);
    expect(ours['x-amz-security-token']).toBe('session-token');
  });
});
