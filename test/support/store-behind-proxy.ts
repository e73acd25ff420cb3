/**
 * For the import's fault tests: a Thelia store in its own MariaDB, and a fault proxy in front of the
 * run's DynamoDB Local, both for the whole test file (started before its tests, stopped after).
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { startMariaDb, type MariaDb } from './mariadb.js';
import { createTheliaStore } from './thelia-store.js';

export interface StoreBehindProxy {
  /** The store's mysql:// URL. */
  storeUrl: string;
  /** The store's server, to edit the store as Thelia would (its database is `shop`). */
  mariadb: MariaDb;
  proxy: FaultProxy;
}

export function useStoreBehindProxy(): StoreBehindProxy {
  const context = {} as StoreBehindProxy;
  beforeAll(async () => {
    const [mariadb, proxy] = await Promise.all([startMariaDb(), startFaultProxy(inject('dynamoEndpoint'))]);
    Object.assign(context, { mariadb, proxy, storeUrl: await createTheliaStore(mariadb, 'shop') });
  }, 120_000);
  afterAll(async () => {
    await context.proxy?.close();
    await context.mariadb?.stop();
  });
  return context;
}
