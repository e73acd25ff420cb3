/**
 * lib/http/idempotency.ts `idempotency`, on its own (docs/conventions.md): a request under an
 * Idempotency-Key takes the key's lease, a retry while it runs is a 409, a retry once it answered is
 * that answer again, and the key speaks only for the request it was first sent with. The records
 * live in the file's table on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../../lib/http/problem.js';
import { idempotency, recordAnswer } from '../../../lib/http/idempotency.js';
import type { HttpRequest } from '../../../lib/http/types.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';
import { useTable } from '../../support/file-table.js';

// Its keys, leases and quota windows live in the file's table.
useTable();

const apiKey = { apiKey: 'A'.repeat(25) };
const sent = (key: string, body = '{"ref":"A"}') => httpRequest({ apiKey, body, headers: { 'idempotency-key': key } });
/** What `before` answers: the recorded answer, when it short-circuits the handler. */
const answerOf = (request: HttpRequest) => idempotency().before?.(request);

describe('idempotency', () => {
  it('does nothing for a request without the header, and refuses a key that is not 1 to 255 visible ASCII characters (400 naming it)', async () => {
    const plain = httpRequest({ apiKey, body: '{}' });
    expect(await outcomeOf(idempotency(), plain)).toBe('passed');
    expect(plain.context.idempotencyLease).toBeUndefined();
    for (const key of ['', 'é', 'x'.repeat(256)]) expect(await outcomeOf(idempotency(), sent(key)), JSON.stringify(key)).toMatchObject({ status: 400, fields: ['Idempotency-Key'] });
  });

  it('gives the first request the lease; a retry while it runs is a 409 that says when to retry; a retry once it answered gets that answer, marked replayed', async () => {
    const key = randomUUID();
    const first = sent(key);
    expect(await answerOf(first)).toBeUndefined();
    const lease = first.context.idempotencyLease;
    expect(lease).toBeDefined();
    expect(await outcomeOf(idempotency(), sent(key))).toMatchObject({ status: 409, detail: expect.stringContaining('still running') });
    if (lease) await recordAnswer(lease, { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '[{"ID":7}]' });
    expect(await answerOf(sent(key))).toEqual({ statusCode: 201, headers: { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' }, body: '[{"ID":7}]' });
  });

  it('speaks only for the request it was first sent with: another body under the same key is a 409', async () => {
    const key = randomUUID();
    await answerOf(sent(key, '{"ref":"A"}'));
    expect(await outcomeOf(idempotency(), sent(key, '{"ref":"B"}'))).toMatchObject({ status: 409, detail: 'this Idempotency-Key was used with another request' });
  });

  it('records a refusal (4xx) for the retry to get again, and frees the key after a failure (5xx) for the retry to run', async () => {
    const refusedKey = randomUUID();
    const refused = sent(refusedKey);
    await answerOf(refused);
    refused.error = new HttpProblem(409, 'a product already has this ref');
    await idempotency().onError?.(refused);
    expect(await answerOf(sent(refusedKey))).toMatchObject({ statusCode: 409, headers: { 'Idempotent-Replayed': 'true' } });

    const failedKey = randomUUID();
    const failed = sent(failedKey);
    await answerOf(failed);
    failed.error = new Error('DynamoDB is out of reach');
    await idempotency().onError?.(failed);
    const retry = sent(failedKey);
    expect(await answerOf(retry)).toBeUndefined();
    expect(retry.context.idempotencyLease).toBeDefined();
  });
});
