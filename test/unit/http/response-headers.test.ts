/** lib/http/response-headers.ts: the headers middlewares gathered go on the answer, whichever it is. */
import { describe, expect, it } from 'vitest';
import { responseHeaders } from '../../../lib/http/response-headers.js';
import { httpRequest } from '../../support/http-request.js';

const QUOTA = { 'RateLimit-Policy': '"default";q=1200;w=60', RateLimit: '"default";r=1199;t=42' };

describe('responseHeaders', () => {
  it('adds the gathered headers to a success and to a problem, keeping the answer’s own', async () => {
    for (const phase of ['after', 'onError'] as const) {
      const request = httpRequest({ response: { statusCode: phase === 'after' ? 200 : 503, headers: { 'Content-Type': 'application/json' }, body: '[]' } });
      request.context.responseHeaders = QUOTA;
      await responseHeaders()[phase]?.(request);
      expect(request.response, phase).toEqual({ statusCode: phase === 'after' ? 200 : 503, headers: { 'Content-Type': 'application/json', ...QUOTA }, body: '[]' });
    }
  });

  it('leaves the answer as it was when nothing was gathered, and adds nothing where there is no answer yet', async () => {
    const answered = httpRequest({ response: { statusCode: 204 } });
    await responseHeaders().after?.(answered);
    expect(answered.response).toEqual({ statusCode: 204 });
    const unanswered = httpRequest();
    unanswered.context.responseHeaders = QUOTA;
    await responseHeaders().onError?.(unanswered);
    expect(unanswered.response).toBeUndefined();
  });
});
