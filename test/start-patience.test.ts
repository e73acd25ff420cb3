/**
 * `npm start` is patient with what it starts or is given (issue 42): a DYNAMODB_ENDPOINT still
 * starting (a compose file or a CI service starts both at once) is waited for, saying so at once
 * after 2 s and every 10 s, and served once it answers; past STORE_START_TIMEOUT_SECONDS it stops, saying why.
 */
import { createServer, connect, type Server } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { signBody } from '../lib/api-keys/signature.js';
import { freePort } from '../lib/local/dynamodb-local.js';
import { start } from './support/npm-start.js';

const apiKey = 'BA7E4C0123456789ABCDEF012';
const secureKey = 'BA7E4C0123456789ABCDEF0123456789ABCDEF0123456789';
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** From now on, `port` passes connections to the run's DynamoDB Local: the endpoint has finished starting. */
function dynamoDbStartsOn(port: number): Promise<void> {
  const target = new URL(inject('dynamoEndpoint'));
  const server = createServer((socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const cut = () => {
      socket.destroy();
      upstream.destroy();
    };
    for (const end of [socket, upstream]) end.on('error', cut);
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}

describe('npm start given a DYNAMODB_ENDPOINT', () => {
  it('waits for it while it is still starting, saying so after 2 s and every 10 s, then serves', async () => {
    const [dynamoPort, port] = [await freePort(), await freePort()];
    const server = start({
      PORT: String(port),
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
      STORE_TABLE_NAME: `patience-${port}`,
      STORE_SECRET: 'patience test secret',
      STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}`,
    });
    let output = '';
    server.child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    server.child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    await expect
      .poll(() => output, { timeout: 60_000, interval: 250 })
      .toMatch(new RegExp(`waiting for DynamoDB at http://127\\.0\\.0\\.1:${dynamoPort}: \\d+ s so far, up to 180 s \\(STORE_START_TIMEOUT_SECONDS\\)`));
    expect(server.child.exitCode).toBeNull();
    await dynamoDbStartsOn(dynamoPort);
    await server.ready;
    const answer = await fetch(`http://127.0.0.1:${port}/api/tax-rules/1?sign=${signBody(secureKey, '')}`, { headers: { Authorization: `Token ${apiKey}` } });
    expect(answer.status).toBe(200);
    server.child.kill('SIGTERM');
  }, 180_000);

  it('stops past STORE_START_TIMEOUT_SECONDS, naming what did not answer and the setting', async () => {
    const [dynamoPort, port] = [await freePort(), await freePort()];
    const server = start({
      PORT: String(port),
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
      STORE_TABLE_NAME: 'never',
      STORE_SECRET: 'patience test secret',
      STORE_START_TIMEOUT_SECONDS: '2',
    });
    const failure = await server.ready.then(
      () => 'listening',
      (error: Error) => error.message,
    );
    expect(failure).toContain('exited with 1');
    expect(failure).toContain(`DynamoDB at http://127.0.0.1:${dynamoPort} did not answer within 2 s (STORE_START_TIMEOUT_SECONDS)`);
  }, 180_000);
});
