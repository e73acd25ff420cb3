/**
 * Webhooks (docs/changes-events-webhooks.md) as a superadmin and a receiver meet them: subscriptions made through the
 * API, a real HTTP receiver on 127.0.0.1 started here (loopback allowed, as `npm start` allows it),
 * and the same worker `npm start` runs (lib/webhooks/worker.ts), a round at a time, with the retry schedule shortened.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Context } from 'aws-lambda';
import { handler as scheduledRun } from '../functions/webhooks/run.js';
import { runWebhooksOnce } from '../lib/webhooks/worker.js';
import { del, get, keyWith, logLines, post, problemFields, put, tableSnapshot } from './support/api.js';
import { cursorNow, type ChangeRow } from './support/changes.js';
import { createCustomer, createProduct } from './support/fixtures.js';
import { useReceiver } from './support/receiver.js';

process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';
process.env.STORE_WEBHOOK_RETRY_SECONDS = '0,0,0,0';

const receiver = useReceiver();

/** Rounds until nothing is left to do (a few at most). */
async function runRounds(max = 6): Promise<void> {
  for (let i = 0; i < max; i++) {
    const round = await runWebhooksOnce();
    if (round.attempted === 0) return;
  }
}

const subscribe = async (path: string, events: string[]) => {
  const created = await post('/api/webhooks', { url: `${receiver.base}${path}`, events, description: path });
  expect(created.status, created.text).toBe(201);
  return created.body[0] as { ID: number; SECRET: string; URL: string };
};
const at = receiver.at;

/** The context of a scheduled run that has `ms` left. */
const runWith = (ms: number) => {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};

describe('the scheduled worker (AWS)', () => {
  it('ends at once when there is nothing to do', async () => {
    const started = Date.now();
    await scheduledRun({}, runWith(60_000));
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('webhooks', () => {
  it('delivers every change after the subscription, signed so that its secret verifies it, shown once', async () => {
    const before = (await createProduct()).row; // made before the subscription: not delivered
    const hook = await subscribe('/all', ['*']);
    expect(hook.SECRET).toMatch(/^whsec_/);
    expect((await get(`/api/webhooks/${hook.ID}`)).body[0].SECRET).toBeUndefined();
    const product = (await createProduct()).row;
    expect((await put(`/api/products/${product.ID}`, { price: '9' })).status).toBe(204);
    await runRounds();
    const got = at('/all');
    const rows = got.map((d) => new Webhook(hook.SECRET).verify(d.body, d.headers as Record<string, string>) as ChangeRow);
    expect(rows.map((r) => [r.ENTITY_ID, r.TYPE])).toEqual(
      expect.arrayContaining([
        [product.ID, 'created'],
        [product.ID, 'updated'],
      ]),
    );
    expect(rows.some((r) => r.ENTITY_ID === before.ID)).toBe(false);
    for (const [i, d] of got.entries()) expect(d.headers['webhook-id']).toBe(rows[i]!.ID);
    expect(logLines.some((line) => line.includes(hook.SECRET))).toBe(false);
  });

  it('tries again after a 503, with the same webhook-id, and the delivery log shows every attempt', async () => {
    receiver.answer('/flaky', (r, count) => r.writeHead(count <= 2 ? 503 : 200).end());
    const hook = await subscribe('/flaky', ['customer.created']);
    const customer = (await createCustomer()).row;
    await runRounds();
    const got = at('/flaky');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect((JSON.parse(got[2]!.body) as ChangeRow).ENTITY_ID).toBe(customer.ID);
    const log = await get(`/api/webhooks/${hook.ID}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.map((d: { ATTEMPT: number; STATUS: number }) => [d.ATTEMPT, d.STATUS])).toEqual([
      [3, 200],
      [2, 503],
      [1, 503],
    ]);
    expect(log.body[2].NEXT_ATTEMPT).toMatch(/^\d{4}-/);
    expect(log.body[0].NEXT_ATTEMPT).toBeNull();
  });

  it('is disabled by a 410, and delivers nothing more', async () => {
    receiver.answer('/gone', (r) => r.writeHead(410).end());
    const hook = await subscribe('/gone', ['product.*']);
    await createProduct();
    await runRounds();
    expect((await get(`/api/webhooks/${hook.ID}`)).body[0]).toMatchObject({ ENABLED: 0, DISABLED_REASON: 'gone' });
    const count = at('/gone').length;
    await createProduct();
    await runRounds();
    expect(at('/gone')).toHaveLength(count);
    expect(logLines.some((line) => line.includes('"message":"webhook disabled"'))).toBe(true);
  });

  it('is disabled as failing when its schedule runs out (three days on the real one), recorded and logged', async () => {
    receiver.answer('/down', (r) => r.writeHead(500).end());
    const kept = process.env.STORE_WEBHOOK_RETRY_SECONDS;
    process.env.STORE_WEBHOOK_RETRY_SECONDS = '0';
    try {
      const hook = await subscribe('/down', ['customer.created']);
      await createCustomer();
      await runRounds();
      expect(at('/down')).toHaveLength(2);
      expect((await get(`/api/webhooks/${hook.ID}`)).body[0]).toMatchObject({ ENABLED: 0, DISABLED_REASON: 'failing' });
      const log = (await get(`/api/webhooks/${hook.ID}/deliveries`)).body as Array<{ ATTEMPT: number; STATUS: number; ERROR: string; NEXT_ATTEMPT: string | null }>;
      expect(log.map((d) => [d.ATTEMPT, d.STATUS, d.ERROR, d.NEXT_ATTEMPT])).toEqual([
        [2, 500, 'status', null],
        [1, 500, 'status', expect.stringMatching(/^\d{4}-/)],
      ]);
      // Enabled again by a person, it takes changes again.
      receiver.answer('/down', (r) => r.writeHead(200).end());
      expect((await put(`/api/webhooks/${hook.ID}`, { enabled: 1 })).body[0]).toMatchObject({ ENABLED: 1, DISABLED_REASON: '' });
      await createCustomer();
      await runRounds();
      expect(at('/down')).toHaveLength(3);
    } finally {
      process.env.STORE_WEBHOOK_RETRY_SECONDS = kept;
    }
  });

  it('is delivered by the scheduled worker too, which works in rounds while a retry falls due in its run, until 15 s of it are left', async () => {
    receiver.answer('/scheduled', (r, count) => r.writeHead(count === 1 ? 503 : 200).end());
    const kept = process.env.STORE_WEBHOOK_RETRY_SECONDS;
    process.env.STORE_WEBHOOK_RETRY_SECONDS = '1.5';
    try {
      await subscribe('/scheduled', ['product.created']);
      const product = (await createProduct()).row;
      const started = Date.now();
      // A 503, then the retry falls due 1.5 s later, within the run (its ticks stop 14 s in, 15 s
      // before its end): the run waits for it, then ends once nothing more falls due, well before
      // ticking to its reserve (a loaded machine's first attempt took 2 s: a shorter run ended first).
      await scheduledRun({}, runWith(30_000));
      expect(Date.now() - started).toBeLessThan(12_000);
      const got = at('/scheduled');
      expect(got.map((d) => (JSON.parse(d.body) as ChangeRow).ENTITY_ID)).toEqual([product.ID, product.ID]);
    } finally {
      process.env.STORE_WEBHOOK_RETRY_SECONDS = kept;
    }
  });

  it("goes on from the newest change when its lane fell behind the changes' retention, and says so", async () => {
    await subscribe('/late', ['product.created']);
    await runRounds();
    // Only the lost change is kept a second: the next one, kept as usual, cannot expire before the lane reads it, however slow the machine.
    const kept = process.env.STORE_CHANGE_RETENTION_DAYS;
    process.env.STORE_CHANGE_RETENTION_DAYS = String(1 / 86_400);
    let lost: { ID: number };
    try {
      lost = (await createProduct()).row;
      await get('/api/changes?limit=1'); // placed by a reader, then past its retention before the lane reads it
    } finally {
      if (kept === undefined) delete process.env.STORE_CHANGE_RETENTION_DAYS;
      else process.env.STORE_CHANGE_RETENTION_DAYS = kept;
    }
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await runRounds();
    expect(logLines.some((line) => line.includes("lane was behind the changes' retention"))).toBe(true);
    const next = (await createProduct()).row;
    await runRounds();
    expect(at('/late').map((d) => (JSON.parse(d.body) as ChangeRow).ENTITY_ID)).toEqual([next.ID]);
    expect(lost.ID).not.toBe(next.ID);
  });

  it('takes only the changes its patterns name', async () => {
    await subscribe('/customers-deleted', ['customer.deleted']);
    const customer = (await createCustomer()).row;
    await createProduct();
    expect((await del(`/api/customers/${customer.ID}`)).status).toBe(204);
    await runRounds();
    expect(at('/customers-deleted').map((d) => (JSON.parse(d.body) as ChangeRow).TYPE)).toEqual(['deleted']);
  });

  it('replays from a cursor exactly the changes after it that its patterns take, with their first ids', async () => {
    const hook = await subscribe('/replayed', ['product.updated']);
    const cursor = await cursorNow();
    const product = (await createProduct()).row;
    await put(`/api/products/${product.ID}`, { price: '4' });
    await runRounds();
    const first = at('/replayed').map((d) => d.headers['webhook-id']);
    expect(first).toHaveLength(1);
    const replay = await post(`/api/webhooks/${hook.ID}/replay`, { cursor });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body[0]).toMatchObject({ ID: hook.ID, REPLAYED: 1 });
    await runRounds();
    expect(at('/replayed').map((d) => d.headers['webhook-id'])).toEqual([...first, ...first]);
    expect((await post(`/api/webhooks/${hook.ID}/replay`, { cursor: 'not-a-cursor' })).status).toBe(400);
  });

  it('refuses a URL to a private, link-local or metadata address, or http where loopback is not allowed', async () => {
    for (const url of ['https://10.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/', 'https://[::ffff:192.168.1.1]/', 'https://0xa9fea9fe/', 'http://127.0.0.2/']) {
      const refused = await post('/api/webhooks', { url, events: ['*'] });
      expect(refused.status, url).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ field: 'url', message: 'address not allowed' });
    }
    delete process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK;
    try {
      const refused = await post('/api/webhooks', { url: `${receiver.base}/x`, events: ['*'] });
      expect(refused.body.errors[0]).toMatchObject({ field: 'url', message: 'must be https' });
    } finally {
      process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';
    }
    expect((await post('/api/webhooks', { url: `${receiver.base}/x`, events: [] })).status).toBe(400);
    expect((await post('/api/webhooks', { url: `${receiver.base}/x`, events: ['order.created'] })).status).toBe(400);
  });

  it('refuses an Idempotency-Key, saying why, and a description with control characters or a lone surrogate; writes nothing', async () => {
    const before = await tableSnapshot();
    const body = { url: `${receiver.base}/refused`, events: ['product.*'] };
    const keyed = await post('/api/webhooks', body, { headers: { 'idempotency-key': 'webhook-1' } });
    expect(keyed.status).toBe(400);
    expect(problemFields(keyed)).toEqual(['Idempotency-Key']);
    expect(keyed.body.detail).toContain('secret');
    for (const description of ['a\u0000b', 'a\ud800', 'bell\u0007']) {
      const refused = await post('/api/webhooks', { ...body, description });
      expect(refused.status, description).toBe(400);
      expect(problemFields(refused)).toEqual(['description']);
    }
    expect(await tableSnapshot()).toEqual(before);
    // Line breaks and tabs are a description's own; it is trimmed and kept in NFC.
    const kept = await post('/api/webhooks', { ...body, description: ' Orders\tto the ERP\nsecond line ' });
    expect(kept.status).toBe(201);
    expect(kept.body[0].DESCRIPTION).toBe('Orders\tto the ERP\nsecond line');
    expect((await del(`/api/webhooks/${kept.body[0].ID}`)).status).toBe(204);
  });

  it('is for superadmins only, and lists, changes and removes subscriptions', async () => {
    const viewer = await keyWith({ product: ['VIEW', 'CREATE', 'UPDATE', 'DELETE'], customer: ['VIEW'], tax: ['VIEW'] });
    expect((await get('/api/webhooks', { as: viewer })).status).toBe(403);
    const hook = await subscribe('/managed', ['*']);
    const updated = await put(`/api/webhooks/${hook.ID}`, { events: ['product.*'], enabled: 0 });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body[0]).toMatchObject({ EVENTS: ['product.*'], ENABLED: 0, DISABLED_REASON: '' });
    expect((await get('/api/webhooks?limit=100')).body.map((w: { ID: number }) => w.ID)).toContain(hook.ID);
    expect((await del(`/api/webhooks/${hook.ID}`)).status).toBe(204);
    expect((await get(`/api/webhooks/${hook.ID}`)).status).toBe(404);
  });
});
