/**
 * Records of idempotent requests, with leases. A request takes its key with a lease (RUNNING, a
 * token of its own, valid for its time budget); the write it protects records its outcome in the
 * same transaction, on condition that the lease is still its own (DONE): so the write is applied
 * exactly once, and an attempt that arrives late, after a retry took over, cannot commit. A lease
 * whose request died expires on its own. What an outcome is and what a fingerprint covers is the
 * caller's business. Records expire by themselves (DynamoDB TTL).
 */
import { present } from '../present.js';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { Conflict } from './errors.js';
import type { Key } from './keys.js';
import { table } from './table.js';
import * as v from 'valibot';
import { readItems } from './items.js';
import { defineStored } from './stored.js';
import { ABSENT, put, putIf, retryOnConflict, update, type WriteStep } from './transactions.js';

/** What a request finds under its key when another request has it. */
export interface IdempotencyRecord<Outcome> {
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  /** RUNNING: how long until its lease ends. */
  leaseRemainingMs: number;
  /** DONE: the outcome its write recorded, or the answer recorded after a refusal. */
  outcome?: Outcome;
}

export interface Lease {
  scope: string;
  token: string;
  /** The request's fingerprint: what the lease was taken for. */
  fingerprint: string;
}

const key = (scope: string): Key => ({ pk: `IDEMPOTENCY#${scope}`, sk: 'RECORD' });
/**
 * The marker of one row of a batch taken under a lease: beside the batch's record, under the
 * request's fingerprint, so that a marker only ever speaks for the request it was made for (a key
 * freed and taken again by another request finds none of the first one's).
 */
const rowKey = (lease: Lease, index: number): Key => ({ pk: `IDEMPOTENCY#${lease.scope}`, sk: `ROW#${lease.fingerprint}#${String(index).padStart(3, '0')}` });
/** Part `part` of an answer too large for the record's item: beside it, under the same fingerprint. */
const partKey = (lease: Lease, part: number): Key => ({ pk: `IDEMPOTENCY#${lease.scope}`, sk: `PART#${lease.fingerprint}#${String(part).padStart(3, '0')}` });

/** A key's record: the request's fingerprint, its state, its lease while running, its outcome once done. */
const StoredRecord = defineStored('idempotency record', {
  fingerprint: v.string(),
  state: v.picklist(['RUNNING', 'DONE']),
  leaseUntil: v.optional(v.number()),
  outcome: v.optional(v.unknown()),
});
/** A batch row's marker: its index in its sort key, and the row it answered when its write named it. */
const StoredRowMarker = defineStored('batch row marker', { sk: v.pipe(v.string(), v.startsWith('ROW#')), rowJson: v.optional(v.string()) });
/** A part of a large outcome's bytes. */
const StoredPart = defineStored('idempotency outcome part', { sk: v.string(), bytes: v.instance(Uint8Array) });

/** A batch row's marker was there already: an earlier attempt of the batch applied the row. */
export class RowApplied extends Error {
  constructor(readonly index: number) {
    super(`row ${index} of this batch was applied by an earlier attempt`);
    this.name = 'RowApplied';
  }
}
const mine = (lease: Lease) => ({
  ConditionExpression: '#state = :running AND #token = :token',
  ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
  ExpressionAttributeValues: { ':running': 'RUNNING', ':token': lease.token },
});

/**
 * Runs a write of this request's own lease. A transaction in flight on the record (a retry that took
 * it over, recording its outcome) refuses it for the moment: written again once it has committed.
 */
async function unlessTakenOver(write: () => Promise<unknown>): Promise<void> {
  try {
    await retryOnConflict(write);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Updates a key's record while its lease is this request's (else: taken over, nothing to do). */
const updateMine = (lease: Lease, expression: string, values: Record<string, unknown>): Promise<void> =>
  unlessTakenOver(() =>
    request((db, options) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key(lease.scope),
          UpdateExpression: expression,
          ...mine(lease),
          ExpressionAttributeValues: { ...mine(lease).ExpressionAttributeValues, ...values },
        }),
        options,
      ),
    ),
  );

export function defineIdempotencyStore<Outcome>(ttlSeconds: number) {
  return {
    /**
     * Takes the key for this request, with a lease of `leaseMs`: when the key is new, when its record
     * expired, or when its lease ran out on the same request. Else returns the record found.
     */
    async begin(scope: string, fingerprint: string, leaseMs: number): Promise<{ lease: Lease } | { found: IdempotencyRecord<Outcome> }> {
      const lease = { scope, token: randomUUID(), fingerprint };
      // A first attempt whose write is committing (its outcome recorded in its transaction) refuses
      // this put for the moment: taken again once it has, it then finds that outcome.
      return retryOnConflict(async () => {
        const now = Date.now();
        const taken = await putIf(
          { ...key(scope), fingerprint, state: 'RUNNING', token: lease.token, leaseUntil: now + leaseMs, [table.ttlAttribute]: Math.floor(now / 1000) + ttlSeconds },
          {
            expression: 'attribute_not_exists(pk) OR #expires < :nowSeconds OR (#state = :running AND leaseUntil < :now AND fingerprint = :fingerprint)',
            names: { '#expires': table.ttlAttribute, '#state': 'state' },
            values: { ':nowSeconds': Math.floor(now / 1000), ':now': now, ':running': 'RUNNING', ':fingerprint': fingerprint },
          },
        );
        if (taken.written) return { lease };
        // The condition failed on an item that is there: a record of this key.
        const old = StoredRecord.parse(present(taken.found, 'the idempotency record the condition met'));
        return {
          found: {
            fingerprint: old.fingerprint,
            state: old.state,
            leaseRemainingMs: Math.max(0, (old.leaseUntil ?? 0) - now),
            outcome: old.outcome as Outcome | undefined,
          },
        };
      });
    },

    /** The transaction step that records a write's outcome, while the lease is still this request's. */
    recordStep(lease: Lease, outcome: Outcome): WriteStep {
      return update(
        key(lease.scope),
        {
          update: 'SET #state = :done, outcome = :outcome REMOVE leaseUntil',
          condition: '#state = :running AND #token = :token',
          names: { '#state': 'state', '#token': 'token' },
          values: { ':done': 'DONE', ':running': 'RUNNING', ':token': lease.token, ':outcome': outcome },
        },
        () => new Conflict('a retry with this Idempotency-Key took this request over'),
      );
    },

    /** Records the outcome of a request that wrote nothing (a refusal), for a retry to get it again. */
    complete: (lease: Lease, outcome: Outcome): Promise<void> => updateMine(lease, 'SET #state = :done, outcome = :outcome REMOVE leaseUntil', { ':done': 'DONE', ':outcome': outcome }),

    /**
     * The step that marks a batch's row applied, in the row's own transaction, on condition that no
     * attempt marked it before (then RowApplied): each row is applied at most once. `rowJson`: the
     * row it answered, when its write named it (a create's).
     */
    rowMarkerStep(lease: Lease, index: number, rowJson: string | undefined): WriteStep {
      const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
      return put({ ...rowKey(lease, index), ...(rowJson === undefined ? {} : { rowJson }), [table.ttlAttribute]: expires }, ABSENT, () => new RowApplied(index));
    },

    /** The rows of this request's batch that earlier attempts applied, by index, with the row each recorded (if any). */
    async appliedRows(lease: Lease, count: number): Promise<Map<number, { rowJson?: string }>> {
      const items = await readItems(Array.from({ length: count }, (_, index) => rowKey(lease, index)));
      return new Map(
        items.map((item) => {
          const marker = StoredRowMarker.parse(item);
          return [Number(marker.sk.slice(marker.sk.lastIndexOf('#') + 1)), marker.rowJson === undefined ? {} : { rowJson: marker.rowJson }];
        }),
      );
    },

    /**
     * Writes the parts of an outcome too large for the record's item (each well within an item),
     * before the record that names how many there are. Parts of an attempt that died before its record
     * are written over by the next, and expire with the key.
     */
    async writeParts(lease: Lease, parts: readonly Uint8Array[]): Promise<void> {
      const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
      const write = (bytes: Uint8Array, part: number) =>
        request((db, options) => db.send(new PutCommand({ TableName: tableName(), Item: { ...partKey(lease, part), bytes, [table.ttlAttribute]: expires } }), options));
      await Promise.all(parts.map(write));
    },

    /** The parts `writeParts` wrote for the request `found` was recorded for, in order. */
    async readParts(scope: string, fingerprint: string, count: number): Promise<Uint8Array[]> {
      const keys = Array.from({ length: count }, (_, part) => partKey({ scope, fingerprint, token: '' }, part));
      const items = await readItems(keys);
      const bySk = new Map(
        items.map((item) => {
          const part = StoredPart.parse(item);
          return [part.sk, part.bytes];
        }),
      );
      return keys.map((k) => {
        const bytes = bySk.get(k.sk);
        if (!bytes) throw new Error(`an idempotency record names ${count} parts of its outcome, and part ${k.sk} is missing`);
        return bytes;
      });
    },

    /** Frees the key at once: the request failed without an outcome worth replaying, and wrote nothing that a retry would need. */
    async release(lease: Lease): Promise<void> {
      await unlessTakenOver(() => request((db, options) => db.send(new DeleteCommand({ TableName: tableName(), Key: key(lease.scope), ...mine(lease) }), options)));
    },

    /**
     * Ends the lease at once but keeps the key for this request: it failed after writing what a
     * retry of the same request must find (a batch's applied rows), so the same request takes the key
     * over at once, and another is refused as a key used with another request.
     */
    abandon: (lease: Lease): Promise<void> => updateMine(lease, 'SET leaseUntil = :ended', { ':ended': 0 }),
  };
}
