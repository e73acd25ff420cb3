/**
 * Writes as plans, built apart from being sent (ElectroDB's `params()` and `go()`). A resource's
 * operation reads what it needs and returns a `Write`: its plan is the transaction's steps (each
 * record read is written on condition of the version read) and the answer the write gives once
 * committed. Whoever runs the operation decides how it is sent, and says so: `commit` sends one
 * plan in its own transaction, with the step that records its answer (an Idempotency-Key) or marks
 * it (a batch row) when asked; `commitTogether` joins several plans into one transaction (an atomic
 * batch); `commitPacked` packs independent plans many to a transaction (a batch's rows, each still
 * its own write). No operation asks how it will be written, nor reads who writes, when, or a new id:
 * the executor stamps each planning with them (stamp.ts), and the plan takes them from its stamp.
 */
import { itemKeyOf, retryOnConflict, StepFailed, writeAtomically, writeSteps } from './transactions.js';
import { keyText } from './keys.js';
import type { OutcomeRecorder, WriteStep } from './step.js';
import { Refused, WriteConflict } from './errors.js';
import { joinSteps } from './joined-steps.js';
import { stampWrite, type WriteStamp } from './stamp.js';

export interface WritePlan<T> {
  /** The transaction's steps: the record's own, its locks', counts' and change's. */
  readonly steps: readonly WriteStep[];
  /** What the write answers once committed (a row, or nothing). */
  readonly answer: T;
  /**
   * Whether the answer is recorded with the write when the writer asks (a create's row: a retry is
   * answered the very row, and never makes a second record). An update's or a delete's retry finds
   * the record as it is then.
   */
  readonly answerRecorded: boolean;
}

/**
 * A write an operation returns: `plan(stamp)` reads and plans it, stamped by whoever runs it. On a
 * concurrent change (WriteConflict) the executor plans it again, with a new stamp, so the reads are
 * fresh; a plan that must not change between attempts (a create's allocated id) is planned once
 * (`planOnce`), with its first stamp.
 */
export class Write<T> {
  constructor(readonly plan: (stamp: WriteStamp) => Promise<WritePlan<T>>) {}

  /** Commits it alone (`commit` below): what a route that answers one write calls. */
  commit(recording: Recording = {}): Promise<T> {
    return commit(this, recording);
  }
}

/**
 * A write whose steps its caller builds (a webhook's, an API key's): no answer to record. Planned by
 * `steps()`, again on a concurrent change when committed by `commit`.
 */
export const stepsWrite = (steps: (stamp: WriteStamp) => readonly WriteStep[] | Promise<readonly WriteStep[]>): Write<void> =>
  new Write(async (stamp) => ({ steps: await steps(stamp), answer: undefined, answerRecorded: false }));

/**
 * A write planned once and sent again as planned: its reads (an allocated id) are not repeated.
 * (Functions beside the class rather than its methods: a route bundles only those it calls.)
 */
export function planOnce<T>(plan: (stamp: WriteStamp) => Promise<WritePlan<T>>): Write<T> {
  let planned: Promise<WritePlan<T>> | undefined;
  return new Write((stamp) => (planned ??= plan(stamp)));
}

/** The same write answering `f` of its answer (a batch row's result made from the row written). */
export const mapWrite = <T, U>(write: Write<T>, f: (answer: T) => U): Write<U> =>
  new Write(async (stamp) => {
    const plan = await write.plan(stamp);
    return { ...plan, answer: f(plan.answer) };
  });

/** What a write's transaction also holds, beyond its plan: the step recording its answer, or marking it a batch row's. */
export interface Recording {
  /** An Idempotency-Key's: records the answer of a plan that records it (`answerRecorded`). */
  readonly answer?: OutcomeRecorder | undefined;
  /** A batch row's: marks the row applied, with the answer when the plan records it. */
  readonly marker?: OutcomeRecorder | undefined;
}

/** The steps a plan commits under `recording`. */
export function stepsOf(plan: WritePlan<unknown>, recording: Recording = {}): WriteStep[] {
  const recorded = plan.answerRecorded ? plan.answer : undefined;
  return [...plan.steps, ...(recording.answer && recorded !== undefined ? [recording.answer(recorded)] : []), ...(recording.marker ? [recording.marker(recorded)] : [])];
}

/**
 * Commits one write in its own transaction, planned again while a concurrent change gets in its
 * way (retryOnConflict), and answers its plan's answer. Throws what the failed step declares.
 */
export const commit = <T>(write: Write<T>, recording: Recording = {}): Promise<T> =>
  retryOnConflict(async () => {
    const plan = await write.plan(stampWrite());
    await writeAtomically(stepsOf(plan, recording));
    return plan.answer;
  });

/**
 * Commits one write in its own transaction, sent once as planned: a concurrent change is thrown
 * (WriteConflict), for a caller that has its own answer to it (a batch of webhook attempts recorded
 * one by one instead; an improvement that a concurrent write makes moot).
 */
export async function commitOnce<T>(write: Write<T>): Promise<T> {
  const plan = await write.plan(stampWrite());
  await writeAtomically(stepsOf(plan));
  return plan.answer;
}

/** One write of a joined transaction: its plan and recording; its error, when planning it failed. */
type Joined<T> = { plan: WritePlan<T>; recording?: Recording | undefined } | { error: unknown };

/** What a joined transaction came to: every answer, in order; or the writes that failed, by position, with their errors. */
export type JoinedOutcome<T> = { committed: true; answers: T[] } | { committed: false; failed: Map<number, unknown> };

/**
 * Commits several writes in one transaction: all or none. Each is planned in turn (one that fails
 * to plan fails the whole, and is named); the joined steps must fit `maxSteps` (else `tooMany` is
 * thrown, given their count); a failed condition names the write whose step it was. Planned again
 * while a concurrent change gets in the way.
 */
export function commitTogether<T>(
  writes: readonly { write: Write<T>; recording?: Recording | undefined }[],
  options: { maxSteps: number; tooMany: (steps: number) => Error },
): Promise<JoinedOutcome<T>> {
  return retryOnConflict(async () => {
    const joined: Joined<T>[] = [];
    // One transaction, one stamp: its records and changes are dated alike.
    const stamp = stampWrite();
    for (const { write, recording } of writes) {
      try {
        joined.push({ plan: await write.plan(stamp), recording });
      } catch (error) {
        joined.push({ error });
      }
    }
    const failed = new Map(joined.flatMap((entry, k) => ('error' in entry ? [[k, entry.error] as const] : [])));
    if (failed.size) return { committed: false, failed };
    const stepOwners: number[] = [];
    const all = joined.flatMap((entry, k) => {
      const own = 'plan' in entry ? stepsOf(entry.plan, entry.recording) : [];
      stepOwners.push(...own.map(() => k));
      return own;
    });
    // As written: two writes counting into one shard are one step, summed (a transaction holds one operation an item).
    const written = joinSteps(all).steps.length;
    if (written > options.maxSteps) throw options.tooMany(written);
    try {
      await writeSteps(all);
    } catch (error) {
      if (!(error instanceof StepFailed) || error.error instanceof WriteConflict) throw error instanceof StepFailed ? error.error : error;
      const owner = stepOwners[error.index];
      if (owner === undefined) throw error.error;
      return { committed: false, failed: new Map([[owner, error.error]]) };
    }
    return { committed: true, answers: joined.map((entry) => (entry as { plan: WritePlan<T> }).plan.answer) };
  });
}

/** How many times a pack is sent, each time without the writes that stopped it the time before, before those left go alone. */
const PACK_SENDS = 4;

/**
 * Writes already planned, packed many to a transaction in their order (as many as fit `maxSteps`
 * steps as written: joined-steps.ts), each pack sent as planned, the packs at once but for those
 * that write an item an earlier one writes, which wait for it. A pack
 * that DynamoDB cancels names the steps that stopped it (a failed condition, an item another
 * transaction had in hand): their writes leave the pack and it is sent again without them, its other
 * writes' conditions having held. Answers each write's fate by position: `committed`; `alone` when
 * it was certainly not applied (it stopped its pack, or its pack failed otherwise, or it is too large
 * to share one), for the caller to plan again and commit by itself; or the error of a pack whose fate
 * is unknown (the table out of reach), which must not be written again blindly.
 */
export async function commitPacked(writes: readonly { plan: WritePlan<unknown>; recording?: Recording | undefined }[], maxSteps: number): Promise<Array<'committed' | 'alone' | { error: unknown }>> {
  const fates: Array<'committed' | 'alone' | { error: unknown }> = writes.map(() => 'alone');
  const stepsOfWrite = writes.map(({ plan, recording }) => stepsOf(plan, recording));
  const packs: number[][] = [];
  let packed: WriteStep[] = [];
  for (const [k, steps] of stepsOfWrite.entries()) {
    if (steps.length > maxSteps) continue;
    const last = packs.at(-1);
    if (last && joinSteps([...packed, ...steps]).steps.length <= maxSteps) {
      last.push(k);
      packed.push(...steps);
    } else {
      packs.push([k]);
      packed = [...steps];
    }
  }
  /** Sends a pack: answers the writes to send again without those that stopped it (none once it is settled). */
  const send = async (members: readonly number[]): Promise<readonly number[]> => {
    const owners = members.flatMap((k) => (stepsOfWrite[k] ?? []).map(() => k));
    try {
      await writeSteps(members.flatMap((k) => stepsOfWrite[k] ?? []));
      for (const k of members) fates[k] = 'committed';
      return [];
    } catch (error) {
      const notApplied = error instanceof StepFailed || error instanceof WriteConflict || error instanceof Refused;
      if (!notApplied) for (const k of members) fates[k] = { error };
      // The writes whose steps stopped it (of a summed count's, the first it sums); the others' conditions held.
      const named = !notApplied ? [] : error instanceof StepFailed ? error.failing : error instanceof WriteConflict ? error.steps : [];
      const stopping = new Set(named.map((step) => owners[step]));
      return named.length ? members.filter((k) => !stopping.has(k)) : [];
    }
  };
  // A pack waits for the earlier ones that write an item it writes too (two rows counting into one
  // shard): on DynamoDB two transactions on one item at once cancel each other; the others go at once.
  const itemsOf = (members: readonly number[]) => new Set(members.flatMap((k) => (stepsOfWrite[k] ?? []).map((step) => keyText(itemKeyOf(step)))));
  const packItems = packs.map(itemsOf);
  const settled: Promise<void>[] = [];
  for (const [p, members] of packs.entries()) {
    const sharing = settled.filter((_, earlier) => [...(packItems[earlier] ?? [])].some((item) => packItems[p]?.has(item)));
    settled.push(
      Promise.all(sharing).then(async () => {
        let left: readonly number[] = members;
        for (let sent = 0; left.length && sent < PACK_SENDS; sent++) left = await send(left);
      }),
    );
  }
  await Promise.all(settled);
  return fates;
}

/** A plan whose answer is recorded with it when the writer asks (a create's row). */
export const recordedPlan = <T>(steps: readonly WriteStep[], answer: T): WritePlan<T> => ({ steps, answer, answerRecorded: true });

/** A plan whose answer is not recorded (an update's row, a delete's nothing). */
export const plan = <T>(steps: readonly WriteStep[], answer: T): WritePlan<T> => ({ steps, answer, answerRecorded: false });
