/**
 * lib/http/auth.ts `authenticate`, on its own (docs/api-keys.md): who calls (401) and whether the body is
 * theirs (412), on a request as middy hands it; the keys live in the file's table on DynamoDB Local.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/index.js';
import { signBody } from '../../../lib/api-keys/signature.js';
import { authenticate } from '../../../lib/http/auth.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';
import { useTable } from '../../support/file-table.js';

// Its keys, leases and quota windows live in the file's table.
useTable();

let key: { apiKey: string; secureKey: string };
const cacheSeconds = process.env.STORE_API_KEY_CACHE_SECONDS;

beforeAll(async () => {
  // Every lookup reads the table: a revocation shows at once.
  process.env.STORE_API_KEY_CACHE_SECONDS = '0';
  key = await createApiKey({ label: 'authenticate unit', grants: { product: ['VIEW'] } });
});

afterAll(() => {
  if (cacheSeconds === undefined) delete process.env.STORE_API_KEY_CACHE_SECONDS;
  else process.env.STORE_API_KEY_CACHE_SECONDS = cacheSeconds;
});

const signed = (body: string, { apiKey, secureKey } = key, authorization = `Token ${apiKey}`) => httpRequest({ body, headers: { authorization }, query: { sign: signBody(secureKey, body) } });

describe('authenticate', () => {
  it('admits a known key whose signature is the body’s, and hands the route its record without its secure key', async () => {
    const request = signed('{"ref":"A"}');
    expect(await outcomeOf(authenticate(), request)).toBe('passed');
    expect(request.context.apiKey).toMatchObject({ apiKey: key.apiKey, grants: { product: ['VIEW'] } });
    expect(JSON.stringify(request.context.apiKey)).not.toContain(key.secureKey);
  });

  it('answers 401 without a token, or for an unknown key, before it looks at the signature', async () => {
    expect(await outcomeOf(authenticate(), httpRequest({ body: '' }))).toMatchObject({ status: 401, detail: 'an API key is required: Authorization: Token <API_KEY>' });
    expect(await outcomeOf(authenticate(), signed('', key, `Bearer ${key.apiKey}`))).toMatchObject({ status: 401 });
    expect(await outcomeOf(authenticate(), signed('', { ...key, apiKey: 'F'.repeat(25) }))).toMatchObject({ status: 401, detail: 'unknown or revoked API key' });
  });

  it('answers 412 for a signature missing or of another body, never saying the one expected', async () => {
    const unsigned = httpRequest({ body: '{}', headers: { authorization: `Token ${key.apiKey}` } });
    const outcome = await outcomeOf(authenticate(), unsigned);
    expect(outcome).toMatchObject({ status: 412 });
    const other = httpRequest({ body: '{"a":2}', headers: { authorization: `Token ${key.apiKey}` }, query: { sign: signBody(key.secureKey, '{"a":1}') } });
    const refused = await outcomeOf(authenticate(), other);
    expect(refused).toMatchObject({ status: 412 });
    expect(JSON.stringify(refused)).not.toContain(signBody(key.secureKey, '{"a":2}'));
  });

  it('admits exactly the bodies signed with the key’s secure key, whatever their bytes', async () => {
    const stranger = { apiKey: key.apiKey, secureKey: 'A'.repeat(48) };
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.boolean(), async (body, ours) => {
        expect(await outcomeOf(authenticate(), signed(body, ours ? key : stranger))).toEqual(ours ? 'passed' : expect.objectContaining({ status: 412 }));
      }),
      { numRuns: 25 },
    );
  });

  it('answers 401 for a revoked key', async () => {
    const revoked = await createApiKey({ label: 'revoked' });
    expect(await outcomeOf(authenticate(), signed('', revoked))).toBe('passed');
    await revokeApiKey(revoked.apiKey);
    expect(await outcomeOf(authenticate(), signed('', revoked))).toMatchObject({ status: 401, detail: 'unknown or revoked API key' });
  });
});
