/**
 * A stand-in for KMS's GenerateDataKey and Decrypt on 127.0.0.1 (KMS exists only on AWS): it speaks
 * the API's JSON protocol, wraps data keys under a key of its own bound to their encryption context
 * (a different context does not open, as with KMS), and counts the calls it takes.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface KmsStandIn {
  endpoint: string;
  keyId: string;
  calls: { GenerateDataKey: number; Decrypt: number };
  /** The encryption contexts it was asked with. */
  contexts: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function startKmsStandIn(): Promise<KmsStandIn> {
  const master = randomBytes(32);
  const keyId = 'arn:aws:kms:us-east-1:000000000000:key/stand-in';
  const calls = { GenerateDataKey: 0, Decrypt: 0 };
  const contexts: Array<Record<string, string>> = [];
  const aad = (context: Record<string, string> | undefined) => Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort()));

  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const input = JSON.parse(body || '{}') as { KeyId?: string; CiphertextBlob?: string; EncryptionContext?: Record<string, string> };
      const answer = (status: number, json: unknown) => response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
      contexts.push(input.EncryptionContext ?? {});
      switch (request.headers['x-amz-target']) {
        case 'TrentService.GenerateDataKey': {
          calls.GenerateDataKey++;
          if (input.KeyId !== keyId) return answer(400, { __type: 'NotFoundException', message: `no key ${input.KeyId}` });
          const plaintext = randomBytes(32);
          const iv = randomBytes(12);
          const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(input.EncryptionContext));
          const blob = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
          return answer(200, { KeyId: keyId, Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64') });
        }
        case 'TrentService.Decrypt': {
          calls.Decrypt++;
          const blob = Buffer.from(input.CiphertextBlob ?? '', 'base64');
          try {
            const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(aad(input.EncryptionContext));
            decipher.setAuthTag(blob.subarray(blob.length - 16));
            const plaintext = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
            return answer(200, { KeyId: keyId, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
          } catch {
            return answer(400, { __type: 'InvalidCiphertextException', message: 'does not open' });
          }
        }
        default:
          return answer(400, { __type: 'UnknownOperationException' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, keyId, calls, contexts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
