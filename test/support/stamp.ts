/** A write's stamp as a test fixes it: a known actor, instant and run of ids, so that plans are compared whole. */
import type { WriteStamp } from '../../lib/db/stamp.js';

export function fixedStamp(now = '2026-11-27T12:00:00.000Z', actor = { apiKey: 'TESTKEY', requestId: 'test-request' }): WriteStamp {
  let ids = 0;
  return { actor, at: Date.parse(now), now, newId: () => `change-${++ids}` };
}
