/** The local HTTP server: every request goes through `dispatch`, as API Gateway would call a Lambda. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dispatch } from './dispatch.js';
import { MAX_BODY_BYTES } from '../http/body-limit.js';
import { problemResponse, toProblem } from '../http/errors.js';

/** Reads at most one byte past the limit: enough for the handler to refuse it, never more. */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > MAX_BODY_BYTES + 1) {
      chunks.push(buffer.subarray(0, MAX_BODY_BYTES + 1 - size));
      size = MAX_BODY_BYTES + 1;
      break;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks);
}

export function createLocalServer(): Server {
  return createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const response = await dispatch({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, sourceIp: req.socket.remoteAddress ?? '127.0.0.1' });
      res.writeHead(response.statusCode ?? 200, { ...response.headers } as Record<string, string>);
      res.end(response.body === undefined ? undefined : Buffer.from(response.body, response.isBase64Encoded ? 'base64' : 'utf8'));
    } catch (error) {
      const response = problemResponse(toProblem(error));
      res.writeHead(response.statusCode ?? 500, response.headers as Record<string, string>);
      res.end(response.body);
    }
  });
}

export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
