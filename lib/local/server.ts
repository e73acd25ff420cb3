/** The local HTTP server: every request goes through `dispatch`, as API Gateway would call a Lambda. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dispatch } from './dispatch.js';
import { MAX_BODY_BYTES } from '../http/body-limit.js';
import { problemResponse, toProblem } from '../http/errors.js';

/**
 * Keeps at most one byte past the limit (enough for the handler to refuse the body) and drains the
 * rest unstored: closing a request mid-upload would lose the 413 before the client could read it.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    request.on('data', (chunk: Buffer) => {
      if (kept > MAX_BODY_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_BODY_BYTES + 1 - kept));
      kept += Math.min(chunk.length, MAX_BODY_BYTES + 1 - kept);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function createLocalServer(): Server {
  return createServer(async (req, res) => {
    const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
    try {
      const body = await readBody(req);
      const response = await dispatch({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, sourceIp });
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
