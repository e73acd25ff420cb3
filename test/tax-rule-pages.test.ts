/**
 * A tax-rule page costs what the page costs (docs/lists.md): the rules' summaries (ids and titles),
 * then the page's rules. Measured with the read units DynamoDB reports, as the request log counts them.
 */
import { describe, expect, it } from 'vitest';
import { followPages, get, logLines, post, put } from './support/api.js';

/** The read units the request log reports for the last request of a route. */
const lastConsumed = (route: string): number => {
  const line = logLines.map((text) => JSON.parse(text) as { msg?: string; Route?: string; consumedCapacity?: number }).findLast((entry) => entry.Route === route);
  if (line?.consumedCapacity === undefined) throw new Error(`no request line for ${route}`);
  return line.consumedCapacity;
};

describe('a tax-rule page', () => {
  it('reads the summaries and its own rules only, however large the other rules are', async () => {
    // 40 rules of ~110 KB each (7 locales of long descriptions): 4.4 MB that a page must not read whole.
    const description = '€'.repeat(5_000);
    for (let i = 0; i < 40; i++) {
      const rule = (await post('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: `Rule ${String(i).padStart(2, '0')}`, description }] })).body[0];
      for (const locales of [
        ['fr_FR', 'es_ES'],
        ['it_IT', 'de_DE'],
        ['ru_RU', 'cs_CZ'],
      ]) {
        const response = await put('/api/tax-rules', { id: rule.ID, i18n: locales.map((locale) => ({ locale, title: `${locale} ${i}`, description })) });
        expect(response.status, response.text).toBe(201);
      }
    }
    const page = await get('/api/tax-rules?limit=1&order=alpha');
    expect(page.body).toHaveLength(1);
    // Summaries: 42 items of ~250 bytes, one read unit per 4 KB of a consistent Query (3 units); the
    // page's rule: ~110 KB, 28 units on AWS (DynamoDB Local reports no capacity for BatchGetItem).
    // Reading every rule whole, as before, took 40 × 28 units in the Query itself.
    expect(lastConsumed('tax-rules/list')).toBeGreaterThan(0);
    expect(lastConsumed('tax-rules/list')).toBeLessThan(40);
    expect((await followPages('/api/tax-rules?limit=7&order=alpha_reverse')).length).toBe(42);
  });
});
