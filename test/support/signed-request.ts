/** A request to a local server signed as the API's clients sign it (`?sign=`, lib/api-keys/signature.ts): its status, headers and parsed body. */
import { signBody } from '../../lib/api-keys/signature.js';

export async function signedRequest(port: number, key: { apiKey: string; secureKey: string }, method: string, url: string, body?: unknown) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const response = await fetch(`http://127.0.0.1:${port}${url}${url.includes('?') ? '&' : '?'}sign=${signBody(key.secureKey, raw)}`, {
    method,
    headers: { Authorization: `Token ${key.apiKey}`, ...(raw ? { 'Content-Type': 'application/json' } : {}) },
    ...(raw ? { body: raw } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json().catch(() => undefined)) as any };
}
