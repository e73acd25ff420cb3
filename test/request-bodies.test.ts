/** What a JSON body must be (docs/conventions.md, docs/api.md), on a create and an update: media type, encoding, members, texts. */
import { describe, expect, it } from 'vitest';
import { call, post, problemFields, tableSnapshot } from './support/api.js';
import { createCustomer, customerInput } from './support/fixtures.js';

const rule = { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'Bodies' }] };
const send = (headers: Record<string, string>, body: string = JSON.stringify(rule)) => call('POST', '/api/tax-rules', { body, headers });

describe('JSON request bodies', () => {
  it('accept application/json in any case, with charset utf-8 or none', async () => {
    for (const type of ['application/json', 'Application/JSON', 'APPLICATION/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      expect((await send({ 'content-type': type })).status, type).toBe(201);
    }
  });

  it('refuse other media types, charsets and encodings with 415, writing nothing', async () => {
    const before = await tableSnapshot();
    for (const headers of <Record<string, string>[]>[
      { 'content-type': 'application/merge-patch+json' },
      { 'content-type': 'application/vnd.api+json' },
      { 'content-type': 'text/json' },
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    ]) {
      const response = await send(headers);
      expect(response.status, JSON.stringify(headers)).toBe(415);
      expect(response.headers['content-type']).toBe('application/problem+json');
    }
    expect((await send({ 'content-type': 'application/json', 'content-encoding': 'identity' })).status).toBe(201);
    const after = await tableSnapshot();
    expect(after.length).toBeGreaterThan(before.length); // only the identity one was written
  });

  it('refuse an object with a member name twice, at any depth (400, body)', async () => {
    const before = await tableSnapshot();
    const twiceTop = '{"country":[64],"tax":[1],"tax":[2],"i18n":[{"locale":"en_US","title":"x"}]}';
    const twiceNested = '{"country":[64],"tax":[1],"i18n":[{"locale":"en_US","title":"x","title":"y"}]}';
    const escaped = '{"country":[64],"tax":[1],"i18n":[{"locale":"en_US","title":"x"}],"t\\u0061x":[2]}';
    for (const body of [twiceTop, twiceNested, escaped]) {
      const response = await send({ 'content-type': 'application/json' }, body);
      expect(response.status, body).toBe(400);
      expect(problemFields(response)).toEqual(['body']);
    }
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('texts in bodies', () => {
  it('are trimmed, and refused when they hold control characters, lone surrogates or nothing visible', async () => {
    const { row } = await createCustomer({ firstname: '  Anne  ', address2: ' étage 2 ' });
    expect(row).toMatchObject({ FIRSTNAME: 'Anne', ADDRESS2: 'étage 2' });
    for (const firstname of ['A\tB', 'A\nB', 'A\u0085B', 'A\u2028B', 'A\uD800B', '\u200B\u200D', '\uFEFF', '   ']) {
      expect(problemFields(await post('/api/customers', customerInput({ firstname }))), JSON.stringify(firstname)).toEqual(['firstname']);
    }
  });

  it('allow line breaks and tabs in long texts only', async () => {
    const description = 'Line one\r\nLine two\twith a tab';
    const created = await post('/api/tax-rules', { ...rule, i18n: [{ locale: 'en_US', title: 'Long', description }] });
    expect(created.status).toBe(201);
    expect(created.body[0].DESCRIPTION).toBe(description);
    expect(problemFields(await post('/api/tax-rules', { ...rule, i18n: [{ locale: 'en_US', title: 'Long', description: 'bell\u0007' }] }))).toEqual(['i18n[0].description']);
    expect(problemFields(await post('/api/tax-rules', { ...rule, i18n: [{ locale: 'en_US', title: 'Line\nbreak' }] }))).toEqual(['i18n[0].title']);
  });

  it('make a password any valid Unicode, compared exactly; checkLogin refuses an empty one (400)', async () => {
    const password = '  mot de passe ✓ 🔑  ';
    const { input } = await createCustomer({ password });
    expect((await post('/api/customers/checkLogin', { email: input.email, password })).status).toBe(200);
    expect((await post('/api/customers/checkLogin', { email: input.email, password: password.trim() })).status).toBe(404);
    expect(problemFields(await post('/api/customers/checkLogin', { email: input.email, password: '' }))).toEqual(['password']);
    expect(problemFields(await post('/api/customers', customerInput({ password: 'abc\uD800defgh' })))).toEqual(['password']);
  });

  it('name an unknown country (and not its zip code) instead of failing', async () => {
    for (const country of [0, 99_999, 1.5, '0', -1]) {
      const response = await post('/api/customers', customerInput({ country }));
      expect(response.status, String(country)).toBe(400);
      expect(problemFields(response)).toEqual(['country']);
    }
  });
});
