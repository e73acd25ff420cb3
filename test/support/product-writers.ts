/**
 * Clients creating products one after another through `npm start`'s port until stopped or until the
 * server goes away (a crash): which products were answered, and when. For the crash test and
 * `BENCH_ONLY=crash` alike, so it imports nothing of vitest.
 */
import { signBody } from '../../lib/api-keys/signature.js';

export interface Writers {
  /** Each product answered 201, with when (epoch ms). */
  answered: Array<{ id: number; at: number }>;
  stop(): Promise<void>;
}

/** `count` writers on `port`, signing with the key given; refs start with `CRASH-<label>`. */
export function productWriters(port: number, key: { apiKey: string; secureKey: string }, count: number, label: string): Writers {
  const answered: Writers['answered'] = [];
  let stopped = false;
  const create = async (ref: string) => {
    const raw = JSON.stringify({ ref, default_category: 0, price: 1, currency: 1, tax_rule: 1, locale: 'en_US', title: 'Written through a crash' });
    const response = await fetch(`http://127.0.0.1:${port}/api/products?sign=${signBody(key.secureKey, raw)}`, {
      method: 'POST',
      headers: { Authorization: `Token ${key.apiKey}`, 'Content-Type': 'application/json' },
      body: raw,
    });
    return { status: response.status, body: (await response.json().catch(() => undefined)) as Array<{ ID: number }> };
  };
  const runs = Array.from({ length: count }, async (_, w) => {
    for (let n = 0; !stopped; n++) {
      try {
        const created = await create(`CRASH-${label}-${w}-${n}`);
        if (created.status === 201) answered.push({ id: created.body[0]!.ID, at: Date.now() });
      } catch {
        return; // the server is gone
      }
    }
  });
  return {
    answered,
    stop: async () => {
      stopped = true;
      await Promise.all(runs);
    },
  };
}
