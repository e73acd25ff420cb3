/** CONTRACT §6: a store holds at most 1 000 tax rules (its lists read them whole); one more is a 409. */
import { describe, expect, it } from 'vitest';
import { del, get, post, tableSnapshot } from './support/api.js';

const rule = (n: number) => ({ country: [64], tax: [1], i18n: [{ locale: 'en_US', title: `Rule ${n}` }] });

describe('POST /api/tax-rules at the limit', () => {
  it('creates up to 1 000 rules, refuses the next with 409 and writes nothing, and creates again once one is deleted', async () => {
    const existing = Number((await get('/api/tax-rules?limit=1')).headers['x-total-count']);
    const created: number[] = [];
    // Eight clients at a time: the store's one count of rules takes them in turn (retried on conflict).
    const next = { n: existing };
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let n = next.n++; n < 1000; n = next.n++) {
          const response = await post('/api/tax-rules', rule(n));
          expect(response.status, response.text).toBe(201);
          created.push(response.body[0].ID);
        }
      }),
    );
    expect(Number((await get('/api/tax-rules?limit=1')).headers['x-total-count'])).toBe(1000);
    const before = await tableSnapshot();
    const refused = await post('/api/tax-rules', rule(1000));
    expect(refused.status).toBe(409);
    expect(await tableSnapshot()).toEqual(before);
    expect((await del(`/api/tax-rules/${created.at(-1)}`)).status).toBe(204);
    expect((await post('/api/tax-rules', rule(1001))).status).toBe(201);
  }, 180_000);
});
