/**
 * Password hashes off the thread that serves, for the local runtime (`npm start`): its one process
 * serves every route, and an Argon2id hash (hash-wasm's WebAssembly, about 50 ms of CPU) blocks the
 * thread it runs on, so that a batch of customers used to stall every other request for seconds.
 * Here each hash runs in one of a few worker threads (one per core), the least busy first, with the
 * same module and the same inputs as on Lambda (lib/customers/password.ts decides salt and
 * parameters). Tooling: no Lambda bundles it.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type Argon2Hasher, type Argon2Input, usePasswordHasher } from '../customers/password.js';

/** The worker's code: hash-wasm's argon2id on each message, by its absolute URL (a data: module resolves nothing relative). */
const workerSource = (hashWasm: string) => `
import { parentPort } from 'node:worker_threads';
import { argon2id } from ${JSON.stringify(hashWasm)};
parentPort.on('message', async ({ id, input }) => {
  try {
    parentPort.postMessage({ id, hash: await argon2id({ ...input, outputType: 'encoded' }) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});`;

interface Pending {
  resolve(hash: string): void;
  reject(error: Error): void;
}

export interface PasswordWorkers {
  hash: Argon2Hasher;
  /** Hashes handed to each worker so far. */
  readonly handed: readonly number[];
  close(): Promise<void>;
}

/** Starts `count` workers (one per core by default); they never keep the process alive. */
export function startPasswordWorkers(count = availableParallelism()): PasswordWorkers {
  const url = new URL(`data:text/javascript,${encodeURIComponent(workerSource(import.meta.resolve('hash-wasm')))}`);
  const pending = new Map<number, Pending>();
  const assigned = new Map<number, Worker>();
  let nextId = 0;
  const workers = Array.from({ length: Math.max(1, count) }, () => {
    const worker = new Worker(url);
    worker.unref();
    // A worker that dies takes its hashes with it: they fail (a 500 for their requests), the others go on.
    worker.on('error', (error) => {
      for (const [id, waiting] of pending) if (assigned.get(id) === worker) waiting.reject(new Error(`password hashing failed: ${error.message}`));
    });
    worker.on('message', ({ id, hash, error }: { id: number; hash?: string; error?: string }) => {
      const waiting = pending.get(id);
      pending.delete(id);
      assigned.delete(id);
      if (hash !== undefined) waiting?.resolve(hash);
      else waiting?.reject(new Error(`password hashing failed: ${error}`));
    });
    return { worker, busy: 0 };
  });
  const handed = workers.map(() => 0);
  const hash = (input: Argon2Input): Promise<string> => {
    const chosen = workers.reduce((least, candidate) => (candidate.busy < least.busy ? candidate : least));
    const id = nextId++;
    chosen.busy++;
    const k = workers.indexOf(chosen);
    handed[k] = (handed[k] ?? 0) + 1;
    return new Promise<string>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      assigned.set(id, chosen.worker);
      chosen.worker.postMessage({ id, input });
    }).finally(() => chosen.busy--);
  };
  return {
    hash,
    handed,
    close: async () => {
      await Promise.all(workers.map(({ worker }) => worker.terminate()));
    },
  };
}

/** This process's hashes go to worker threads from now on. */
export function hashPasswordsInWorkers(count?: number): PasswordWorkers {
  const pool = startPasswordWorkers(count);
  usePasswordHasher(pool.hash);
  return pool;
}
