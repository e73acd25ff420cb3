import { describe, expect, it } from 'vitest';
import { del, get, post, problemFields, put, tableSnapshot, type ApiResponse } from './support/api.js';
import { routeByName } from '../lib/routes.js';
import { productsUsing } from '../lib/tax-rules/entity.js';
import { lambdaContext, loadHandler, toApiGatewayEvent } from '../lib/local/dispatch.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';

const newRule = (title: string, extra: Record<string, unknown> = {}) => ({
  country: [64, 13],
  tax: [1, 2],
  i18n: [{ locale: 'fr_FR', title, description: `description de ${title}` }],
  ...extra,
});

async function createRule(title: string, extra: Record<string, unknown> = {}) {
  const response = await post('/api/tax-rules', newRule(title, extra));
  expect(response.status).toBe(201);
  return response.body[0];
}

describe('POST /api/tax-rules', () => {
  it('creates a rule and answers its row in the creation locale', async () => {
    const response = await post('/api/tax-rules', newRule('TVA test'));
    expect(response.status).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const [row] = response.body;
    expect(Object.keys(row)).toEqual([...CONTRACT_ROW_KEYS.taxRule]);
    expect(row).toMatchObject({
      LOCALE: 'fr_FR',
      IS_TRANSLATED: 1,
      TITLE: 'TVA test',
      DESCRIPTION: 'description de TVA test',
      IS_DEFAULT: 0,
      COUNTRIES: [64, 13],
      TAXES: [1, 2],
      VERSION: 1,
      LOOP_COUNT: 1,
      LOOP_TOTAL: 1,
    });
    expect(row.ID).toBeGreaterThanOrEqual(3);
    expect(new Date(row.CREATE_DATE).toISOString()).toBe(row.CREATE_DATE);
    const read = await get(`/api/tax-rules/${row.ID}?lang=fr_FR`);
    expect(read.body).toEqual([row]);
  });

  it('answers in the lang asked for, falling back to the default language', async () => {
    const response = await post('/api/tax-rules?lang=en_US', {
      ...newRule('Règle'),
      i18n: [
        { locale: 'fr_FR', title: 'Règle' },
        { locale: 'en_US', title: 'Rule' },
      ],
    });
    expect(response.body[0]).toMatchObject({ LOCALE: 'en_US', TITLE: 'Rule', IS_TRANSLATED: 1, DESCRIPTION: '' });
    const german = await get(`/api/tax-rules/${response.body[0].ID}?lang=de_DE`);
    expect(german.body[0]).toMatchObject({ LOCALE: 'de_DE', TITLE: 'Rule', IS_TRANSLATED: 0 });
    const byLangId = await get(`/api/tax-rules/${response.body[0].ID}?lang=1`);
    expect(byLangId.body[0]).toMatchObject({ LOCALE: 'fr_FR', TITLE: 'Règle', IS_TRANSLATED: 1 });
  });

  it('refuses invalid fields, naming each of them, and writes nothing', async () => {
    const before = await tableSnapshot();
    const response = await post('/api/tax-rules', {
      country: [64, 99999],
      tax: [],
      i18n: [{ locale: 'xx_XX', title: '' }],
      default: 'yes',
      colour: 'red',
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(problemFields(response).sort()).toEqual(['colour', 'country[1]', 'default', 'i18n[0].locale', 'i18n[0].title', 'tax'].sort());
    expect(response.body).toMatchObject({ type: '/api/docs#problem-invalid-input', title: 'Bad Request', status: 400 });
    expect(response.body.error).toBe(response.body.detail);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('lists the offending fields of the body and of the query string in one 400', async () => {
    const response = await post('/api/tax-rules?lang=xx_XX', { ...newRule('both'), tax: 'all' });
    expect(problemFields(response)).toEqual(['tax', 'lang']);
  });

  it('refuses missing fields, repeated ids and repeated locales', async () => {
    expect(problemFields(await post('/api/tax-rules', {})).sort()).toEqual(['country', 'i18n', 'tax']);
    const repeated = await post('/api/tax-rules', {
      country: [64, 64],
      tax: [1],
      i18n: [
        { locale: 'fr_FR', title: 'a' },
        { locale: 'fr_FR', title: 'b' },
      ],
    });
    expect(problemFields(repeated).sort()).toEqual(['country', 'i18n']);
  });

  it('answers 400 for a body that is not JSON or not an object, 415 for another content type', async () => {
    const before = await tableSnapshot();
    const broken = await post('/api/tax-rules', '{"country": [64');
    expect(broken.status).toBe(400);
    expect(problemFields(broken)).toEqual(['body']);
    const array = await post('/api/tax-rules', '[1,2]');
    expect(array.status).toBe(400);
    const form = await post('/api/tax-rules', 'country=64', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    const withCharset = await post('/api/tax-rules', newRule('charset'), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(withCharset.status).toBe(201);
    // The rule, its summary (the titles lists sort), its change, the change's marker for the feed, and
    // the shards of its products' count.
    expect((await tableSnapshot()).length).toBe(before.length + 4 + productsUsing(0).shards);
  });

  it('answers 413 for a body over 64 KiB and writes nothing', async () => {
    const before = await tableSnapshot();
    const response = await post('/api/tax-rules', newRule('x'.repeat(70_000)));
    expect(response.status).toBe(413);
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('GET /api/tax-rules/{entityId}', () => {
  it('reads the seeded default rule in the default language', async () => {
    const response = await get('/api/tax-rules/1');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([expect.objectContaining({ ID: 1, LOCALE: 'en_US', TITLE: 'Default Tax Rule', IS_DEFAULT: 1, COUNTRIES: [64], TAXES: [1], LOOP_COUNT: 1, LOOP_TOTAL: 1 })]);
  });

  it('answers 404 for an unknown id, and for ids that are not positive integers', async () => {
    const unknown = await get('/api/tax-rules/999999');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/problem+json');
    for (const id of ['0', 'abc', '1.5', '-1', '99999999999999999']) expect((await get(`/api/tax-rules/${id}`)).status).toBe(404);
  });

  it('answers 400 for an unknown lang', async () => {
    const response = await get('/api/tax-rules/1?lang=xx_XX');
    expect(response.status).toBe(400);
    expect(problemFields(response)).toEqual(['lang']);
  });
});

describe('GET /api/tax-rules', () => {
  it('lists every rule by id with loop counters and the total', async () => {
    const response = await get('/api/tax-rules?limit=100');
    expect(response.status).toBe(200);
    const ids = response.body.map((r: { ID: number }) => r.ID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.slice(0, 2)).toEqual([1, 2]);
    response.body.forEach((row: { LOOP_COUNT: number; LOOP_TOTAL: number }, i: number) => {
      expect(row.LOOP_COUNT).toBe(i + 1);
      expect(row.LOOP_TOTAL).toBe(ids.length);
    });
    expect(response.headers['x-total-count']).toBe(String(ids.length));
  });

  it('orders by title in the requested language, both ways', async () => {
    await createRule('Zèbre');
    await createRule('abeille');
    const alpha = (await get('/api/tax-rules?order=alpha&lang=fr_FR&limit=100')).body.map((r: { TITLE: string }) => r.TITLE);
    expect(alpha).toEqual([...alpha].sort((a, b) => a.localeCompare(b, 'fr')));
    expect(alpha.indexOf('abeille')).toBeLessThan(alpha.indexOf('Zèbre'));
    const reverse = (await get('/api/tax-rules?order=alpha_reverse&lang=fr_FR&limit=100')).body.map((r: { TITLE: string }) => r.TITLE);
    expect(reverse).toEqual([...alpha].reverse());
    const idReverse = (await get('/api/tax-rules?order=id_reverse&limit=100')).body.map((r: { ID: number }) => r.ID);
    expect(idReverse).toEqual([...idReverse].sort((a, b) => b - a));
  });

  it('pages with limit, offset and a signed cursor that follows the Link header', async () => {
    for (const t of ['p1', 'p2', 'p3']) await createRule(t);
    const all = (await get('/api/tax-rules?limit=100')).body.map((r: { ID: number }) => r.ID);
    const first = await get('/api/tax-rules?limit=2');
    expect(first.body.map((r: { ID: number }) => r.ID)).toEqual(all.slice(0, 2));
    expect(first.body[1]).toMatchObject({ LOOP_COUNT: 2, LOOP_TOTAL: 2 });
    const cursor = first.headers['x-next-cursor'];
    expect(cursor).toBeTruthy();
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link!)?.[1];
    expect(link).toContain(`cursor=${encodeURIComponent(cursor!)}`);
    const second = await get(link!);
    expect(second.body.map((r: { ID: number }) => r.ID)).toEqual(all.slice(2, 4));
    const offset = await get('/api/tax-rules?limit=2&offset=3');
    expect(offset.body.map((r: { ID: number }) => r.ID)).toEqual(all.slice(3, 5));
    const last = await get(`/api/tax-rules?limit=100&offset=${all.length - 1}`);
    expect(last.headers['x-next-cursor']).toBeUndefined();
    expect(last.headers.link).toBeUndefined();
  });

  it('refuses a tampered cursor, a cursor of another order, and bad paging values', async () => {
    const first = await get('/api/tax-rules?limit=1');
    const cursor = first.headers['x-next-cursor']!;
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    expect(problemFields(await get(`/api/tax-rules?limit=1&cursor=${tampered}`))).toEqual(['cursor']);
    expect(problemFields(await get(`/api/tax-rules?limit=1&order=alpha&cursor=${cursor}`))).toEqual(['cursor']);
    expect(problemFields(await get('/api/tax-rules?limit=0'))).toEqual(['limit']);
    expect(problemFields(await get('/api/tax-rules?limit=101'))).toEqual(['limit']);
    expect(problemFields(await get('/api/tax-rules?offset=10001'))).toEqual(['offset']);
    const order = await get('/api/tax-rules?order=price');
    expect(order.body.errors[0].message).toBe('must be one of: id, id_reverse, alpha, alpha_reverse');
  });

  it('refuses a cursor made for another lang', async () => {
    await createRule('lang one');
    await createRule('lang two');
    const cursor = (await get('/api/tax-rules?limit=1&order=alpha&lang=fr_FR')).headers['x-next-cursor']!;
    expect((await get(`/api/tax-rules?limit=1&order=alpha&lang=fr_FR&cursor=${cursor}`)).status).toBe(200);
    expect(problemFields(await get(`/api/tax-rules?limit=1&order=alpha&lang=en_US&cursor=${cursor}`))).toEqual(['cursor']);
  });

  it('walks every order to its end without skipping or repeating a rule that stayed, while rules are created and deleted between pages', async () => {
    const titles = ['walk-a', 'walk-b', 'walk-c', 'walk-d', 'walk-e', 'walk-f'];
    const rules = [];
    for (const title of titles) rules.push(await createRule(title));
    for (const order of ['id', 'id_reverse', 'alpha', 'alpha_reverse']) {
      const doomed = await createRule(`walk-doomed-${order}`);
      const seen: number[] = [];
      let next: string | undefined = `/api/tax-rules?limit=2&order=${order}&lang=fr_FR`;
      for (let page = 0; next; page++) {
        const response: ApiResponse = await get(next);
        expect(response.status).toBe(200);
        seen.push(...response.body.map((r: { ID: number }) => r.ID));
        // Between the first two pages: one rule goes, two come (one sorts first, one last).
        if (page === 0) {
          expect((await del(`/api/tax-rules/${doomed.ID}`)).status).toBe(204);
          await createRule('walk-0 first');
          await createRule('walk-z last');
        }
        next = /^<([^>]+)>; rel="next"$/.exec(response.headers.link ?? '')?.[1];
      }
      expect(new Set(seen).size, order).toBe(seen.length);
      for (const rule of rules) expect(seen, order).toContain(rule.ID);
    }
  });

  it('ignores unknown query parameters', async () => {
    expect((await get('/api/tax-rules?limit=1&foo=bar')).status).toBe(200);
  });
});

describe('PUT /api/tax-rules', () => {
  it('merges i18n per locale, replaces countries and taxes, bumps VERSION and answers 201 with the row', async () => {
    const rule = await createRule('Avant');
    const response = await put('/api/tax-rules', { id: rule.ID, i18n: [{ locale: 'fr_FR', title: 'Après' }], tax: [2] });
    expect(response.status).toBe(201);
    expect(response.body).toEqual([expect.objectContaining({ ID: rule.ID, TITLE: 'Après', DESCRIPTION: 'description de Avant', TAXES: [2], COUNTRIES: [64, 13], VERSION: 2, LOOP_TOTAL: 1 })]);
    expect(response.headers.etag).toBe('"2"');
    const english = await put('/api/tax-rules', { id: rule.ID, i18n: [{ locale: 'en_US', title: 'After', description: 'in English' }] });
    expect(english.body[0]).toMatchObject({ LOCALE: 'en_US', TITLE: 'After', VERSION: 3 });
    expect((await get(`/api/tax-rules/${rule.ID}?lang=fr_FR`)).body[0]).toMatchObject({ TITLE: 'Après', IS_TRANSLATED: 1 });
  });

  it('needs a title for a new locale, and something to change', async () => {
    const rule = await createRule('Titre');
    const before = await tableSnapshot();
    const noTitle = await put('/api/tax-rules', { id: rule.ID, i18n: [{ locale: 'es_ES', description: 'sin título' }] });
    expect(noTitle.status).toBe(400);
    expect(problemFields(noTitle)).toEqual(['i18n[0].title']);
    const empty = await put('/api/tax-rules', { id: rule.ID });
    expect(empty.status).toBe(400);
    expect((await put('/api/tax-rules', { i18n: [{ locale: 'fr_FR', title: 'x' }] })).status).toBe(400);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('answers 404 for an unknown id', async () => {
    expect((await put('/api/tax-rules', { id: 987654, tax: [1] })).status).toBe(404);
  });

  it('makes a rule the default and takes the flag from the previous one', async () => {
    const rule = await createRule('Nouvelle règle par défaut');
    const previous = (await get('/api/tax-rules?limit=100')).body.find((r: { IS_DEFAULT: number }) => r.IS_DEFAULT === 1);
    const response = await put('/api/tax-rules', { id: rule.ID, default: 1 });
    expect(response.body[0].IS_DEFAULT).toBe(1);
    const after = await get(`/api/tax-rules/${previous.ID}`);
    expect(after.body[0]).toMatchObject({ IS_DEFAULT: 0, VERSION: previous.VERSION + 1 });
    const defaults = (await get('/api/tax-rules?limit=100')).body.filter((r: { IS_DEFAULT: number }) => r.IS_DEFAULT === 1);
    expect(defaults.map((r: { ID: number }) => r.ID)).toEqual([rule.ID]);
  });

  it('leaves exactly one default after 20 concurrent "make this the default" requests, each applied (those answered 503 sent again)', async () => {
    const rules = await Promise.all(Array.from({ length: 20 }, (_, i) => createRule(`concurrent ${i}`)));
    // Each is applied, sent again as a client does when the record was busy past its budget (503: a
    // loaded machine's, never a 409 or a 5xx else): how many fit in 10 s is the machine's speed.
    let pending = rules;
    for (let round = 0; pending.length && round < 10; round++) {
      const responses = await Promise.all(pending.map((rule) => put('/api/tax-rules', { id: rule.ID, default: true })));
      expect(responses.filter((r) => r.status !== 201 && r.status !== 503).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      pending = pending.filter((_, k) => responses[k]!.status === 503);
    }
    expect(pending).toEqual([]);
    const defaults = (await get('/api/tax-rules?limit=100')).body.filter((r: { IS_DEFAULT: number }) => r.IS_DEFAULT === 1);
    expect(defaults).toHaveLength(1);
  });

  it('creating a rule with default: true moves the default too', async () => {
    const rule = await createRule('créée par défaut', { default: true });
    expect(rule.IS_DEFAULT).toBe(1);
    const defaults = (await get('/api/tax-rules?limit=100')).body.filter((r: { IS_DEFAULT: number }) => r.IS_DEFAULT === 1);
    expect(defaults.map((r: { ID: number }) => r.ID)).toEqual([rule.ID]);
  });

  it('answers 412 for a stale If-Match and writes nothing', async () => {
    const rule = await createRule('versionnée');
    const before = await tableSnapshot();
    const stale = await put('/api/tax-rules', { id: rule.ID, tax: [2] }, { headers: { 'if-match': '"7"' } });
    expect(stale.status).toBe(412);
    expect(await tableSnapshot()).toEqual(before);
    const fresh = await put('/api/tax-rules', { id: rule.ID, tax: [2] }, { headers: { 'if-match': '"1"' } });
    expect(fresh.status).toBe(201);
  });
});

describe('DELETE /api/tax-rules/{entityId}', () => {
  it('deletes a rule: 204 with no body, then 404', async () => {
    const rule = await createRule('à supprimer');
    const response = await del(`/api/tax-rules/${rule.ID}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await get(`/api/tax-rules/${rule.ID}`)).status).toBe(404);
    expect((await del(`/api/tax-rules/${rule.ID}`)).status).toBe(404);
  });

  it('answers 412 for a stale If-Match and keeps the rule', async () => {
    const rule = await createRule('gardée');
    expect((await del(`/api/tax-rules/${rule.ID}`, { headers: { 'if-match': '"2"' } })).status).toBe(412);
    expect((await get(`/api/tax-rules/${rule.ID}`)).status).toBe(200);
  });
});

describe('routing', () => {
  it('answers 404 for a malformed id before asking for a key, when API Gateway routes it to the handler', async () => {
    const route = routeByName('tax-rules/get');
    const event = toApiGatewayEvent({ method: 'GET', url: '/api/tax-rules/abc' }, route, { entityId: 'abc' });
    const response = await (await loadHandler(route))(event, lambdaContext(route.name));
    expect(response.statusCode).toBe(404);
  });

  it('answers GET /api with OK and no key', async () => {
    const response = await get('/api', { as: null });
    expect(response.status).toBe(200);
    expect(response.text).toBe('OK');
  });

  it('answers 404 for an unknown path and 405 with Allow for a known path with another method', async () => {
    expect((await get('/api/nothing-here')).status).toBe(404);
    const wrongMethod = await del('/api/tax-rules');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD, POST, PUT');
  });
});
