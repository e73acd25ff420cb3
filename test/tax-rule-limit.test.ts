/** docs/api.md: a store holds at most 1 000 tax rules (its lists read them whole); one more is a 409. */
import { describe, expect, it } from 'vitest';
import { taxRulesWrittenDirectly } from './support/backlog.js';
import { del, get, post, tableSnapshot } from './support/api.js';

const rule = (n: number) => ({ country: [64], tax: [1], i18n: [{ locale: 'en_US', title: `Rule ${n}` }] });

describe('POST /api/tax-rules at the limit', () => {
  it('creates up to 1 000 rules, the last ten of sixteen racing for them, refuses the next with 409 and writes nothing, and creates again once one is deleted', async () => {
    const existing = Number((await get('/api/tax-rules?limit=1')).headers['x-total-count']);
    // The store filled to 10 short of the limit, four rules to a transaction as the import writes them
    // (a thousand creates one after another cost a minute and a half)...
    await taxRulesWrittenDirectly(990 - existing);
    // ...then sixteen at once through the API for the last ten: the store's one count of rules takes
    // them in turn (retried on conflict), and exactly ten fit.
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => post('/api/tax-rules', rule(990 + i))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array<number>(10).fill(201), ...Array<number>(6).fill(409)]);
    const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body[0].ID as number);
    expect(Number((await get('/api/tax-rules?limit=1')).headers['x-total-count'])).toBe(1000);
    const before = await tableSnapshot();
    const refused = await post('/api/tax-rules', rule(1000));
    expect(refused.status).toBe(409);
    expect(await tableSnapshot()).toEqual(before);
    expect((await del(`/api/tax-rules/${created.at(-1)}`)).status).toBe(204);
    expect((await post('/api/tax-rules', rule(1001))).status).toBe(201);
  }, 180_000);
});
