/** lib/http/json-request.ts: what a JSON body must be before it is parsed (docs/conventions.md): its media type, and no member twice. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateMember, jsonRequest } from '../../../lib/http/json-request.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

const sent = (contentType: string | undefined, body = '{}', more: Record<string, string> = {}) =>
  outcomeOf(jsonRequest(), httpRequest({ body, headers: { ...(contentType === undefined ? {} : { 'Content-Type': contentType }), ...more } }));

describe('jsonRequest', () => {
  it('takes application/json in any case, with charset utf-8 or none, unencoded', async () => {
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) expect(await sent(type), type).toBe('passed');
    expect(await sent('application/json', '{}', { 'Content-Encoding': 'identity' })).toBe('passed');
  });

  it('refuses any other media type, charset or encoding with a 415 that says what it takes', async () => {
    for (const [type, more, detail] of [
      [undefined, {}, 'the body must be JSON (Content-Type: application/json)'],
      ['text/plain', {}, 'the body must be JSON (Content-Type: application/json)'],
      ['application/merge-patch+json', {}, 'the body must be JSON (Content-Type: application/json)'],
      ['application/json; charset=latin1', {}, 'the body must be UTF-8 (charset=utf-8)'],
      ['application/json', { 'Content-Encoding': 'gzip' }, 'the body must not be encoded (Content-Encoding: identity)'],
    ] as const) {
      expect(await sent(type, '{}', more), String(type)).toEqual({ status: 415, detail, fields: [] });
    }
  });

  it('refuses an object with a member twice, naming it, wherever the object is; the same name in two objects is no duplicate', async () => {
    expect(await sent('application/json', '{"price":1,"title":"a","price":2}')).toEqual({ status: 400, detail: 'body: has the member "price" twice', fields: ['body'] });
    expect(await sent('application/json', '{"rows":[{"op":"create"},{"op":"delete","id":1,"id":2}]}')).toMatchObject({ status: 400, detail: 'body: has the member "id" twice' });
    expect(await sent('application/json', '{"a\\"b":1,"a\\u0022b":2}')).toMatchObject({ detail: 'body: has the member "a"b" twice' });
    expect(await sent('application/json', '{"rows":[{"id":1},{"id":2}],"id":3}')).toBe('passed');
    expect(await sent('application/json', '{"text":"\\"id\\": {\\"id\\":"}')).toBe('passed');
  });

  it('hands the parser its one spelling of the header', async () => {
    const request = httpRequest({ body: '{}', headers: { 'CONTENT-TYPE': 'application/json; charset=UTF-8', 'x-other': '1' } });
    await jsonRequest().before?.(request);
    expect(request.event.headers).toEqual({ 'x-other': '1', 'content-type': 'application/json' });
  });

  it('finds no duplicate in any JSON a serializer writes, and finds a member written twice in any object', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(duplicateMember(JSON.stringify(value))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, again) => {
        const [name] = Object.keys(object);
        const text = JSON.stringify(object);
        const twice = `${text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(again)}}`;
        expect(duplicateMember(twice)).toBe(name);
      }),
      { numRuns: 300 },
    );
  });
});
