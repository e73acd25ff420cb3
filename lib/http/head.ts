/**
 * HEAD on a GET route answers what GET would, status and headers, without the body (RFC 9110,
 * section 9.3.2). API Gateway routes `HEAD <path>` to the GET route's function (the stack adds both route
 * keys) and the local router does the same; this wrapper drops the body once the answer is made.
 */
import type { HttpEvent, HttpResponse } from './types.js';

export const isHead = (event: HttpEvent): boolean => event.requestContext.http.method.toUpperCase() === 'HEAD';

export function answeringHead<Context>(handler: (event: HttpEvent, context: Context) => Promise<HttpResponse>) {
  return async (event: HttpEvent, context: Context): Promise<HttpResponse> => {
    const response = await handler(event, context);
    if (!isHead(event) || response.body === undefined) return response;
    const { body, isBase64Encoded, ...rest } = response;
    const length = Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
    return { ...rest, headers: { ...rest.headers, 'Content-Length': String(length) } };
  };
}
