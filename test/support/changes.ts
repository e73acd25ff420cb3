/** Following `GET /api/changes` as a client does (docs/changes-events-webhooks.md). */
import { expect } from 'vitest';
import { get, type ApiResponse, type Credentials } from './api.js';

export interface FieldChange {
  field: string;
  locale: string | null;
  before: unknown;
  after: unknown;
}

export interface ChangeRow {
  ID: string;
  RESOURCE: string;
  ENTITY_ID: number | string;
  TYPE: 'created' | 'updated' | 'deleted';
  VERSION: number;
  CHANGES: FieldChange[];
  API_KEY: string;
  REQUEST_ID: string;
  DATE: string;
}

/**
 * The feed's position now, after every change committed so far: a read places what is pending first
 * (`cursor=now` alone answers a position before changes committed but not yet placed, docs/changes-events-webhooks.md).
 */
export async function cursorNow(query = '', as?: Credentials): Promise<string> {
  expect((await get(`/api/changes?limit=1${query}`, as ? { as } : {})).status).toBe(200);
  const response = await get(`/api/changes?cursor=now${query}`, as ? { as } : {});
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual([]);
  return response.headers['x-next-cursor']!;
}

/** Every change after `cursor` (from the oldest kept without one), page by page, and the cursor after the last. */
export async function followChanges(cursor: string | undefined, query = '', as?: Credentials, limit = 100): Promise<{ changes: ChangeRow[]; cursor: string }> {
  const changes: ChangeRow[] = [];
  for (;;) {
    const from = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: ApiResponse<ChangeRow[]> = await get(`/api/changes?limit=${limit}${from}${query}`, as ? { as } : {});
    expect(page.status, page.text).toBe(200);
    expect(page.headers['x-next-cursor']).toBeTruthy();
    cursor = page.headers['x-next-cursor']!;
    changes.push(...page.body);
    if (page.body.length === 0) return { changes, cursor };
  }
}
