/**
 * Calls the API as a client would: through the same router, API Gateway event and handler modules
 * as the local server, signed with a superadmin key unless told otherwise.
 */
import { expect } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createApiKey, type Grants } from '../../lib/api-keys/index.js';
import { signBody } from '../../lib/api-keys/signature.js';
import { db, tableName } from '../../lib/db/client.js';
import { dispatch } from '../../lib/local/dispatch.js';
import { undocumented } from './openapi-contract.js';
import { passwordsSent, responseLog, signsSent } from './seen.js';

export interface Credentials {
  apiKey: string;
  secureKey: string;
}

export interface CallOptions {
  body?: unknown;
  /** Credentials to sign with; `null` sends no Authorization header. */
  as?: Credentials | null;
  /** Overrides the computed signature; `null` sends none. */
  sign?: string | null;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

let superadmin: Promise<Credentials> | undefined;

export { logLines, passwordsSent, responseLog, signsSent } from './seen.js';

/** A superadmin key of this test file's table, created once. */
export const superadminKey = (): Promise<Credentials> => (superadmin ??= createApiKey({ label: 'tests', superadmin: true }));

export const keyWith = (grants: Grants): Promise<Credentials> => createApiKey({ label: 'tests', grants });

export async function call<T = any>(method: string, url: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const raw = options.body === undefined ? '' : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
  const credentials = options.as === undefined ? await superadminKey() : options.as;
  const headers: Record<string, string> = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  let target = url;
  if (credentials) {
    headers.authorization ??= `Token ${credentials.apiKey}`;
    const sign = options.sign === undefined ? signBody(credentials.secureKey, raw) : options.sign;
    if (sign !== null) target += `${url.includes('?') ? '&' : '?'}sign=${sign}`;
    if (sign) signsSent.add(sign);
  }
  const password = (options.body as { password?: unknown } | undefined)?.password;
  if (typeof password === 'string' && password.length >= 8) passwordsSent.add(password);
  const response = await dispatch({ method, url: target, headers, body: raw });
  const text = response.body ?? '';
  responseLog.push(`${JSON.stringify(response.headers ?? {})}\n${text}`);
  const contentType = String(response.headers?.['Content-Type'] ?? '');
  const status = response.statusCode ?? 200;
  const body = contentType.includes('json') && text ? JSON.parse(text) : text;
  // Every answer of the suite must be what the OpenAPI document says of its route and status.
  const mismatch = undocumented(method, target, status, contentType, body);
  expect(mismatch, 'the answer does not match the OpenAPI document').toBeUndefined();
  return {
    status,
    headers: Object.fromEntries(Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
    body,
    text,
  };
}

export const get = <T = any>(url: string, options?: CallOptions) => call<T>('GET', url, options);
export const post = <T = any>(url: string, body: unknown, options?: CallOptions) => call<T>('POST', url, { ...options, body });
export const put = <T = any>(url: string, body: unknown, options?: CallOptions) => call<T>('PUT', url, { ...options, body });
export const del = <T = any>(url: string, options?: CallOptions) => call<T>('DELETE', url, options);

/** The IDs of a response's rows, in order. */
export const ids = (response: ApiResponse): number[] => response.body.map((row: { ID: number }) => row.ID);

/**
 * Asserts that a list comes in id order and in `order` (by `column`, case-insensitively), each both
 * ways (`_reverse`), and that its unfiltered total counts every row.
 */
export async function expectOrderedBothWays(path: string, order: string, column: string): Promise<void> {
  const values = (response: ApiResponse) => response.body.map((row: Record<string, string>) => row[column]!.toLowerCase());
  const byId = await get(`${path}?limit=100`);
  expect(byId.status).toBe(200);
  expect(ids(byId)).toEqual([...ids(byId)].sort((a: number, b: number) => a - b));
  expect(Number(byId.headers['x-total-count'])).toBe(byId.body.length);
  expect(ids(await get(`${path}?limit=100&order=id_reverse`))).toEqual([...ids(byId)].reverse());
  const sorted = values(await get(`${path}?limit=100&order=${order}`));
  expect(sorted).toEqual([...sorted].sort());
  expect(values(await get(`${path}?limit=100&order=${order}_reverse`))).toEqual([...sorted].reverse());
}

/** Follows a list's `Link: rel="next"` from `url` to its last page; every row, in order. */
export async function followPages<Row = any>(url: string): Promise<Row[]> {
  const rows: Row[] = [];
  let next: string | undefined = url;
  while (next) {
    const page: ApiResponse<Row[]> = await get(next);
    if (page.status !== 200) throw new Error(`${next} answered ${page.status}: ${page.text}`);
    rows.push(...page.body);
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];
  }
  return rows;
}

/**
 * Every item of the table, in key order: to show that a refused request changed nothing. The id
 * counters' `lastId` is left out: a create refused for a conflict (409) may consume an id, as an SQL
 * auto-increment does, since ids are handed out before the transaction (see lib/db/counters.ts).
 */
export async function tableSnapshot(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }));
    items.push(...(page.Items ?? []).map(({ lastId: _, ...item }) => item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

/** Asserts that the answer is a problem+json with this status (and, given, these fields named). */
export function problemFields(response: ApiResponse): string[] {
  return (response.body?.errors ?? []).map((e: { field: string }) => e.field);
}
