/**
 * A stand-in for Secrets Manager's GetSecretValue on 127.0.0.1 (it exists only on AWS): it speaks the
 * API's JSON protocol, holds one secret under an ARN, and counts the reads it answers. A client
 * reaches it through `AWS_ENDPOINT_URL_SECRETS_MANAGER`, as the SDK reads that variable itself.
 */
import { createServer, type Server } from 'node:http';

export interface SecretsManagerStandIn {
  endpoint: string;
  secretArn: string;
  reads: number;
  close(): Promise<void>;
}

export async function startSecretsManagerStandIn(secretString: string): Promise<SecretsManagerStandIn> {
  const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:store-stand-in';
  const standIn = { reads: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const answer = (status: number, json: unknown) => response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
      const input = JSON.parse(body || '{}') as { SecretId?: string };
      if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') return answer(400, { __type: 'UnknownOperationException' });
      if (input.SecretId !== secretArn) return answer(400, { __type: 'ResourceNotFoundException', message: `no secret ${input.SecretId}` });
      standIn.reads++;
      return answer(200, { ARN: secretArn, Name: 'store-stand-in', SecretString: secretString, VersionId: 'stand-in', CreatedDate: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    secretArn,
    get reads() {
      return standIn.reads;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
