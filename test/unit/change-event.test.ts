import { describe, expect, it } from 'vitest';
import type { Change } from '../../lib/db/changes.js';
import { changeEvent } from '../../lib/events/event.js';

const change = (after: string): Change => ({
  key: { pk: 'CHANGE#product#7', sk: 'V#0000000003#0' },
  id: 'c1',
  resource: 'product',
  entityId: 7,
  type: 'updated',
  version: 3,
  changes: [{ field: 'DESCRIPTION', locale: 'en_US', before: null, after }],
  apiKey: '0123456789ABCDEF012345678',
  requestId: 'r1',
  date: '2026-11-23T02:00:00.000Z',
});

describe('a change as an EventBridge entry', () => {
  it("is source store-api, detail-type <resource>.<type>, at the change's date, its detail the change row", () => {
    const entry = changeEvent(change('A lamp'), 'bus');
    expect(entry).toMatchObject({ EventBusName: 'bus', Source: 'store-api', DetailType: 'product.updated', Time: new Date('2026-11-23T02:00:00.000Z') });
    expect(JSON.parse(entry.Detail!)).toEqual({
      ID: 'c1',
      RESOURCE: 'product',
      ENTITY_ID: 7,
      TYPE: 'updated',
      VERSION: 3,
      CHANGES: [{ field: 'DESCRIPTION', locale: 'en_US', before: null, after: 'A lamp' }],
      API_KEY: '0123456789ABCDEF012345678',
      REQUEST_ID: 'r1',
      DATE: '2026-11-23T02:00:00.000Z',
    });
  });

  it('carries CHANGES as null and TRUNCATED 1 when the entry would pass 256 KB, counted as EventBridge counts it', () => {
    const entryBytes = (text: string) => 14 + 'store-api'.length + 'product.updated'.length + Buffer.byteLength(changeEvent(change(text), 'bus').Detail!);
    // Just under the limit: whole. One 4-byte character more: truncated.
    const overhead = entryBytes('');
    const room = 256 * 1024 - overhead;
    const fits = 'é'.repeat(Math.floor(room / 2)) + (room % 2 ? 'a' : '');
    expect(entryBytes(fits)).toBe(256 * 1024);
    expect(JSON.parse(changeEvent(change(fits), 'bus').Detail!).CHANGES).toHaveLength(1);
    const over = JSON.parse(changeEvent(change(`${fits}😀`), 'bus').Detail!);
    expect(over).toMatchObject({ ID: 'c1', CHANGES: null, TRUNCATED: 1 });
  });
});
