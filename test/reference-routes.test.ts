/**
 * The reference data as read-only routes (docs/api.md), named as Thelia 2.1–2.4's API names them:
 * loop rows, the lists' paging and `lang`, any key, and 405 for every other method.
 */
import { describe, expect, it } from 'vitest';
import { call, followPages, get, ids, keyWith } from './support/api.js';

const KINDS = [
  { path: '/api/title', count: 3, keys: ['ID', 'LOCALE', 'IS_TRANSLATED', 'SHORT', 'LONG', 'POSITION', 'IS_DEFAULT', 'LOOP_COUNT', 'LOOP_TOTAL'] },
  {
    path: '/api/countries',
    count: 205,
    keys: ['ID', 'LOCALE', 'IS_TRANSLATED', 'TITLE', 'ISOCODE', 'ISOALPHA2', 'ISOALPHA3', 'IS_DEFAULT', 'HAS_STATES', 'NEED_ZIP_CODE', 'ZIP_CODE_FORMAT', 'VISIBLE', 'LOOP_COUNT', 'LOOP_TOTAL'],
  },
  { path: '/api/currencies', count: 48, keys: ['ID', 'LOCALE', 'IS_TRANSLATED', 'NAME', 'ISOCODE', 'SYMBOL', 'RATE', 'IS_DEFAULT', 'LOOP_COUNT', 'LOOP_TOTAL'] },
  { path: '/api/languages', count: 7, keys: ['ID', 'TITLE', 'CODE', 'LOCALE', 'IS_DEFAULT', 'LOOP_COUNT', 'LOOP_TOTAL'] },
  { path: '/api/taxes', count: 2, keys: ['ID', 'LOCALE', 'IS_TRANSLATED', 'TITLE', 'DESCRIPTION', 'TYPE', 'REQUIREMENTS', 'LOOP_COUNT', 'LOOP_TOTAL'] },
];

describe.each(KINDS)('$path', ({ path, count, keys }) => {
  it('lists every record by id, a page at a time, with its total, either way', async () => {
    const first = await get(`${path}?limit=2`);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body[0])).toEqual(keys);
    expect(first.headers['x-total-count']).toBe(String(count));
    const walked = await followPages(`${path}?limit=40`);
    expect(walked.map((row) => row.ID)).toEqual([...walked.map((row) => row.ID)].sort((a, b) => a - b));
    expect(walked).toHaveLength(count);
    expect(ids(await get(`${path}?order=id_reverse&limit=3`))).toEqual(
      walked
        .map((row) => row.ID)
        .reverse()
        .slice(0, 3),
    );
  });

  it('reads one record, and answers 404 for an id it does not have', async () => {
    const [row] = (await get(`${path}?limit=1`)).body;
    expect((await get(`${path}/${row.ID}`)).body).toEqual([{ ...row, LOOP_COUNT: 1, LOOP_TOTAL: 1 }]);
    expect((await get(`${path}/987654`)).status).toBe(404);
  });

  it('may be read with any key, and is never written: other methods are 405', async () => {
    const noGrants = await keyWith({});
    expect((await call('GET', path, { as: noGrants })).status).toBe(200);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await call(method, method === 'DELETE' ? `${path}/1` : path, { body: method === 'DELETE' ? undefined : {} });
      expect(refused.status, `${method} ${path}`).toBe(405);
      expect(refused.headers.allow).toContain('GET');
    }
  });
});

describe('the reference rows', () => {
  it('are in the lang asked for, else in the default language, as every localized row', async () => {
    expect((await get('/api/countries/64?lang=fr_FR')).body[0]).toMatchObject({ ID: 64, LOCALE: 'fr_FR', IS_TRANSLATED: 1, TITLE: 'France métropolitaine', ISOALPHA2: 'FR', IS_DEFAULT: 1 });
    expect((await get('/api/title/1?lang=de_DE')).body[0]).toMatchObject({ SHORT: 'Hr.', LONG: 'Herr', IS_DEFAULT: 1 });
    // Czech texts are empty in Thelia's data: the default language's show.
    expect((await get('/api/currencies/1?lang=cs_CZ')).body[0]).toMatchObject({ LOCALE: 'cs_CZ', IS_TRANSLATED: 0, NAME: 'Euro', ISOCODE: 'EUR', RATE: '1.000000' });
    expect((await get('/api/taxes/1')).body[0]).toMatchObject({ TITLE: 'French 20% VAT', REQUIREMENTS: { percent: '20' } });
    expect((await get('/api/languages/2')).body[0]).toMatchObject({ LOCALE: 'en_US', CODE: 'en', IS_DEFAULT: 1 });
    expect((await get('/api/countries?lang=xx')).status).toBe(400);
  });
});
