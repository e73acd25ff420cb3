/**
 * One delivery attempt (docs/changes-events-webhooks.md): a POST of the change row, signed, to an address checked at
 * this attempt (checkWebhookUrl) and connected to as checked, so that a name cannot resolve
 * elsewhere between the check and the connection. The timeout covers the name's resolution too. A
 * 2xx within it delivers it; a redirect is never followed. The connection goes through an agent of
 * its own, never the global one, which NODE_USE_ENV_PROXY would send through HTTP(S)_PROXY: a proxy
 * would resolve the name itself and reach what the check refused. What the attempt gives back is
 * what the delivery log shows: the receiver's status (0 when none came) and an error word, never
 * the body or the secret.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AddressRefused, checkWebhookUrl, type AddressOptions, type CheckedTarget } from './address-policy.js';
import { deliveryHeaders } from './signature.js';

export interface Attempt {
  /** The receiver's HTTP status, 0 when none came. */
  status: number;
  /** '' when delivered; else `timeout`, `refused`, `address not allowed`, `redirect not followed`, `status`... */
  error: string;
  delivered: boolean;
  latencyMs: number;
}

/** An attempt's time, the name's resolution included (docs/changes-events-webhooks.md: a 2xx within 10 s delivers it). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DeliveryOptions extends AddressOptions {
  timeoutMs?: number;
}

const errorWord = (error: NodeJS.ErrnoException): string =>
  error.name === 'TimeoutError' || error.name === 'AbortError' || error.code === 'ETIMEDOUT'
    ? 'timeout'
    : error.code === 'ECONNREFUSED'
      ? 'refused'
      : error.code === 'ECONNRESET'
        ? 'connection reset'
        : error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')
          ? 'tls'
          : 'network';

export async function deliver(url: string, secret: string, changeId: string, body: string, options: DeliveryOptions = {}): Promise<Attempt> {
  const started = performance.now();
  const done = (status: number, error: string): Attempt => ({ status, error, delivered: error === '', latencyMs: Math.round(performance.now() - started) });
  const signal = AbortSignal.timeout(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  let target: CheckedTarget;
  try {
    target = await checkWebhookUrl(url, options, signal);
  } catch (error) {
    if (error instanceof AddressRefused) return done(0, error.reason === 'address not allowed' ? error.reason : `url ${error.reason}`);
    if (signal.aborted) return done(0, 'timeout');
    throw error;
  }
  const https = target.url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  const headers = { ...deliveryHeaders(secret, changeId, new Date(), body), 'user-agent': 'store-api-webhooks/1', 'content-length': String(Buffer.byteLength(body)) };
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = request(target.url, {
        method: 'POST',
        headers,
        // Connect to the address checked, whatever the name resolves to now; TLS still checks the name.
        lookup: ((_host: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          lookupOptions.all ? callback(null, [{ address: target.address, family: target.family }]) : callback(null, target.address, target.family)) as never,
        signal,
        // One connection of its own: no proxy from the environment, no socket kept for another target.
        agent: https ? new HttpsAgent({ keepAlive: false }) : new HttpAgent({ keepAlive: false }),
      });
      outgoing.on('response', resolve);
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    // The receiver's answer is not read beyond its status: drain it so the socket is freed.
    response.resume();
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return done(status, '');
    return done(status, status >= 300 && status < 400 ? 'redirect not followed' : 'status');
  } catch (error) {
    return done(0, errorWord(error as NodeJS.ErrnoException));
  }
}
