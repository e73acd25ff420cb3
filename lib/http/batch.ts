/**
 * Batch writes (docs/batches-and-client.md): `POST /api/<resource>/batch` applies up to 100 rows of creates,
 * updates, deletes and upserts through the resource's own operations (its BatchDeclaration), and
 * answers one result per row, as the single route would have answered it. Everything that refuses
 * the whole batch is decided before any row is written: its shape and bound, the grants of every op
 * it holds, two rows on one record, the quota (one unit a row). Then each row runs in its own
 * transaction, a few at once; or, `atomic`, every row's steps commit in one transaction.
 * ARCHITECTURE.md ("Batch writes") says how an Idempotency-Key covers the rows.
 */
import { LIMITS } from '../limits.js';
import * as v from 'valibot';
import type { ApiKeyRecord } from '../api-keys/index.js';
import { allows } from '../api-keys/access.js';
import { callerOf } from './auth.js';
import type { BatchDeclaration } from '../batch/declaration.js';
import { actingAs, stampWrite } from '../db/stamp.js';
import { Conflict, Contended, NotFound } from '../db/errors.js';
import { RowApplied } from '../db/idempotency-store.js';
import type { OutcomeRecorder } from '../db/step.js';
import { commit, commitPacked, commitTogether, mapWrite, Write, type Recording } from '../db/write-plan.js';
import { InvalidInput, type FieldError } from '../errors.js';
import { langQuery } from '../i18n.js';
import { inTurns } from '../in-turns.js';
import { integer } from '../validation.js';
import { log } from '../log.js';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import { routeByName, type Access, type RouteName } from '../routes.js';
import { budgetEnd, withTimeKept } from './budget.js';
import { toProblem } from './errors.js';
import type { Lease } from '../db/idempotency-store.js';
import { appliedBatchRows, batchRowMarker, recordAnswer } from './idempotency.js';
import { toLoop, type LoopRow } from './loop.js';
import { HttpProblem, type ProblemBody } from './problem.js';
import { chargeUnits } from './quota.js';
import { protectedStack } from './protected-stack.js';
import { rawBody, type HttpContext, type HttpEvent, type HttpRequest, type HttpResponse } from './types.js';
import { fieldErrors, parseInputs } from './validation.js';

export const MAX_ROWS = 100;
export const MAX_ATOMIC_ROWS = 25;
/** A DynamoDB transaction's items: what an atomic batch's rows may write together. */
export const MAX_ATOMIC_STEPS = LIMITS.dynamodb.transactionItems;
/**
 * Rows applied alone at once: enough to overlap their round trips, few enough to leave the table's
 * other writers room. A row goes alone when its pack could not be written (other writers had its
 * records in hand), so they meet contention: at 8, batches competing for the same records met each
 * other twice as often, each row waited longer, and the batch's time ran out before some rows
 * (`BENCH_ONLY=upserts`: 95 % of the rows applied at 8, every row at 4).
 */
const CONCURRENCY = 4;
/** The looks an upsert takes at a key other writers keep taking or deleting, before its row is a 503 (busy). */
const UPSERT_LOOKS = 8;

const OPS = ['create', 'update', 'delete', 'upsert'] as const;
type Op = (typeof OPS)[number];
const ACCESSES_OF: Record<Op, readonly Access[]> = { create: ['CREATE'], update: ['UPDATE'], delete: ['DELETE'], upsert: ['CREATE', 'UPDATE'] };

const BatchBody = v.strictObject({
  rows: v.pipe(v.array(v.unknown(), 'must be a list of rows'), v.minLength(1, 'must hold at least one row'), v.maxLength(MAX_ROWS, `holds at most ${MAX_ROWS} rows`)),
  atomic: v.optional(v.boolean('must be true or false'), false),
});
const RowHead = v.object({
  op: v.picklist(OPS, 'must be create, update, delete or upsert'),
  id: v.optional(integer(1)),
  version: v.optional(integer(1)),
});

/** One result of the answer, in the rows' order. */
export interface BatchResult {
  INDEX: number;
  STATUS: number;
  ID: number | null;
  ROW?: LoopRow;
  PROBLEM?: ProblemBody;
}

/** A row ready to run, or refused before anything runs. */
type Planned = { index: number; op: Op; id: number | undefined; version: number | undefined; input: unknown } | { index: number; op?: Op; id?: number; problem: HttpProblem };
type Ready = Extract<Planned, { input: unknown }>;

/** A row's field errors, named with the row: `rows[3].price`. */
const inRow = (index: number, errors: readonly FieldError[]): FieldError[] =>
  errors.map((error) => ({ ...error, field: error.field === 'body' ? `rows[${index}]` : `rows[${index}]${error.field.startsWith('[') ? '' : '.'}${error.field}` }));

const refusedRow = (index: number, errors: FieldError[], op?: Op, id?: number): Planned => ({
  index,
  ...(op ? { op } : {}),
  ...(id ? { id } : {}),
  problem: toProblem(new InvalidInput(inRow(index, errors))),
});

/** Checks a row's op, id and version, then its fields with the op's own schema (the single route's). */
function planRow(declaration: BatchDeclaration, row: unknown, index: number): Planned {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return refusedRow(index, [{ field: 'body', message: 'must be an object' }]);
  const { op, id, version, ...fields } = row as Record<string, unknown>;
  const head = v.safeParse(RowHead, { op, id, version });
  if (!head.success) return refusedRow(index, fieldErrors(head.issues, 'body'));
  const needsId = head.output.op === 'update' || head.output.op === 'delete';
  const errors: FieldError[] = [];
  if (needsId && head.output.id === undefined) errors.push({ field: 'id', message: 'is required' });
  if (!needsId && id !== undefined) errors.push({ field: 'id', message: `is not taken by ${head.output.op}` });
  if (head.output.op === 'upsert' && !declaration.upsert) errors.push({ field: 'op', message: `upsert needs a natural key, which a ${declaration.folder.replace(/s$/, '')} has not` });
  const schema = head.output.op === 'create' || head.output.op === 'upsert' ? declaration.create.schema : head.output.op === 'update' ? declaration.update.schema : v.strictObject({});
  const value = head.output.op === 'update' && declaration.update.idInBody ? { id: head.output.id, ...fields } : fields;
  const parsed = v.safeParse(schema, value);
  if (!parsed.success) errors.push(...fieldErrors(parsed.issues, 'body'));
  if (errors.length) return refusedRow(index, errors, head.output.op, head.output.id);
  return { index, op: head.output.op, id: head.output.id, version: head.output.version, input: parsed.output };
}

/**
 * What records a row names: its id (update, delete), the natural key it creates, upserts or sets
 * (as the resource compares it), and the record an upsert's key names now (read). Two rows of a
 * batch naming one record are a 400 before anything runs, in whatever form they name it: rows
 * applied concurrently would race each other, atomic ones would cancel their own transaction.
 */
async function sameRecords(declaration: BatchDeclaration, rows: readonly Ready[]): Promise<FieldError[]> {
  const upsert = declaration.upsert;
  const claims = rows.map((row) => {
    const named: string[] = [];
    if (row.id !== undefined) named.push(`id ${row.id}`);
    const keyValue = upsert && (row.input as Record<string, unknown>)[upsert.field];
    if (upsert && typeof keyValue === 'string') named.push(`${upsert.field} ${upsert.key(row.input as never)}`);
    return { row, named };
  });
  // An upsert updates the record its key names: when other rows name records by id, it names that id too.
  if (upsert && rows.some((row) => row.id !== undefined)) {
    await inTurns(
      claims.filter((claim) => claim.row.op === 'upsert'),
      CONCURRENCY,
      async (claim) => {
        const owner = await upsert.find(claim.row.input as never);
        if (owner !== undefined) claim.named.push(`id ${owner}`);
      },
    );
  }
  const seen = new Map<string, number>();
  const errors: FieldError[] = [];
  for (const { row, named } of claims) {
    const clash = named.find((record) => seen.has(record));
    if (clash !== undefined) errors.push({ field: `rows[${row.index}]`, message: `is on the same record as rows[${seen.get(clash)}] (${clash}): send one row per record` });
    else for (const record of named) seen.set(record, row.index);
  }
  return errors;
}

interface Applied {
  status: number;
  id: number | null;
  row?: Row | undefined;
}

export function defineBatchHandler(name: RouteName, declaration: BatchDeclaration) {
  const route = routeByName(name);
  const statusOf = (op: 'create' | 'update' | 'delete') => routeByName(`${declaration.folder}/${op}` as RouteName).status;
  const { create, update, remove, read, upsert } = declaration;

  /**
   * The write a row makes, through the resource's operations, answering as the single route would.
   * An upsert looks its key up at each plan: the record it names, updated; none, a create.
   */
  function writeOf(row: Ready, lang: Lang | undefined): Write<Applied> {
    const created = (write: Write<Row>) => mapWrite(write, (made): Applied => ({ status: statusOf('create'), id: Number(made.ID), row: made }));
    const updated = (id: number, write: Write<Row | undefined>) => mapWrite(write, (changed): Applied => ({ status: statusOf('update'), id, row: changed }));
    const id = row.id ?? 0;
    switch (row.op) {
      case 'create':
        return created(create.run(row.input, lang));
      case 'update':
        return updated(id, update.run(id, row.input, row.version, lang));
      case 'delete':
        return mapWrite(remove(id, row.version), (): Applied => ({ status: statusOf('delete'), id }));
      case 'upsert': {
        const { find, update: updateFound } = upsert as NonNullable<typeof upsert>;
        return new Write(async (stamp) => {
          const found = await find(row.input);
          return (found === undefined ? created(create.run(row.input, lang)) : updated(found, updateFound(found, row.input, lang))).plan(stamp);
        });
      }
    }
  }

  /**
   * Another writer (another batch's upsert) may take an upsert's key between its look and its
   * create, or delete the record between the look and the update: it looks again, until the
   * request's budget ends (its DynamoDB calls then end as Unavailable, a 503).
   */
  const lostTheRace = (row: Ready, error: unknown) => row.op === 'upsert' && ((error instanceof Conflict && error.field === upsert?.field) || error instanceof NotFound);

  /** A row's write committed in its own transaction, marked under a key (its create's row recorded with the marker). */
  async function apply(row: Ready, lang: Lang | undefined, recording: Recording): Promise<Applied> {
    for (let look = 1; ; look++) {
      try {
        return await commit(writeOf(row, lang), recording);
      } catch (error) {
        if (!lostTheRace(row, error)) throw error;
        // Bounded by its looks as much as by the budget: a key fought over that long is busy, not taken.
        if (look >= UPSERT_LOOKS) throw new Contended();
      }
    }
  }

  /** A row an earlier attempt applied: the row it recorded, else the record as it is now (when the op answers one). */
  async function replayed(row: Ready, recorded: Row | undefined, lang: Lang | undefined): Promise<Applied> {
    if (recorded) return { status: statusOf('create'), id: Number(recorded.ID), row: recorded };
    const id = row.id ?? (row.op === 'upsert' && upsert ? await upsert.find(row.input) : undefined) ?? null;
    const status = row.op === 'delete' ? statusOf('delete') : statusOf('update');
    if (status === 204 || id === null) return { status, id };
    return { status, id, row: await read(id, lang).catch(() => undefined) };
  }

  const result = (index: number, applied: Applied): BatchResult => {
    const [row] = applied.row && applied.status !== 204 ? toLoop([applied.row]) : [];
    return { INDEX: index, STATUS: applied.status, ID: applied.id, ...(row ? { ROW: row } : {}) };
  };
  const failure = (index: number, problem: HttpProblem, id?: number): BatchResult => ({ INDEX: index, STATUS: problem.status, ID: id ?? null, PROBLEM: problem.body });
  const problemOf = (row: Ready, error: unknown): HttpProblem => {
    // An operation's bad input is the row's: its detail names the row's fields, as its errors do.
    if (error instanceof InvalidInput) return toProblem(new InvalidInput(inRow(row.index, error.errors)));
    const problem = toProblem(error);
    if (problem.status >= 500 && problem.status !== 503) log('error', 'a batch row failed', { route: name, row: row.index, error: error instanceof Error ? error.name : String(error) });
    const errors = problem.body.errors;
    return errors ? new HttpProblem(problem.status, problem.body.detail, { errors: inRow(row.index, errors) }) : problem;
  };

  /**
   * The rows packed many to a transaction, and those that could not be, each in its own transaction,
   * CONCURRENCY at once; under a key, each marked, and those applied before replayed. A row alone starts only while the batch's time left holds a typical row so far (the
   * median: a row retried under conflicts is not typical) and a margin: else it is a 503 that was not
   * applied (sent again, it runs), rather than one cut off mid-way.
   */
  async function applyEach(rows: readonly Ready[], lang: Lang | undefined, context: HttpContext): Promise<BatchResult[]> {
    const lease = context.idempotencyLease;
    const endsAt = budgetEnd(context);
    const rowTimes: number[] = [];
    const typicalRowMs = () => [...rowTimes].sort((a, b) => a - b)[Math.floor(rowTimes.length / 2)] ?? 0;
    // The markers of this batch's rows only (one batch read): those an earlier attempt applied.
    const markers = (held: Lease) => appliedBatchRows(held, Math.max(...rows.map((row) => row.index)) + 1);
    const before = lease && rows.length ? await markers(lease) : new Map<number, Row | undefined>();
    const recordingOf = (row: Ready) => ({ marker: lease && rowMarker(lease, row.index) });
    const failed = (row: Ready, error: unknown) => failure(row.index, problemOf(row, error), row.id);
    /** A row an earlier attempt applied, answered as it was (a read that fails is that row's problem). */
    const replay = (row: Ready, recorded: Row | undefined) =>
      replayed(row, recorded, lang).then(
        (applied) => result(row.index, applied),
        (error: unknown) => failed(row, error),
      );
    const runOne = async (row: Ready): Promise<BatchResult> => {
      const started = Date.now();
      if (endsAt - started < typicalRowMs() + ROW_MARGIN_MS) return failure(row.index, outOfTime(), row.id);
      try {
        const applied = await apply(row, lang, recordingOf(row));
        rowTimes.push(Date.now() - started);
        return result(row.index, applied);
      } catch (error) {
        // Only a marked row meets an earlier attempt's marker: there is a lease.
        if (error instanceof RowApplied && lease)
          return markers(lease).then(
            (applied) => replay(row, applied.get(row.index)),
            (cause: unknown) => failed(row, cause),
          );
        return failed(row, error);
      }
    };
    /**
     * The batch's rows planned at once (their reads one BatchGet per 100 keys) and written packed
     * many to a transaction, the transactions sent at once unless they share an item (few round trips and commits for many
     * rows: an ERP's stock sync); a row whose pack was not applied, or that did not plan, is planned
     * again and written alone, as if it had been alone all along.
     */
    const runPacked = async (fresh: readonly Ready[]): Promise<BatchResult[]> => {
      const started = Date.now();
      // No row has run yet: a batch whose time is nearly gone before it starts sends its rows alone, each to its 503.
      if (endsAt - started < ROW_MARGIN_MS) return inTurns(fresh, CONCURRENCY, runOne);
      // Planned all at once, under one stamp: their reads, asked in the same turns, go as one BatchGet each (lib/db/items.ts).
      const stamp = stampWrite();
      const planned = await inTurns(fresh, fresh.length, (row) =>
        writeOf(row, lang)
          .plan(stamp)
          .catch(() => undefined),
      );
      const packed = fresh.flatMap((row, k) => {
        const plan = planned[k];
        return plan ? [{ row, plan, recording: recordingOf(row) }] : [];
      });
      const fates = await commitPacked(packed, MAX_ATOMIC_STEPS);
      const settled = new Map(packed.map(({ row, plan }, k) => [row.index, { answer: plan.answer as Applied, fate: fates[k] }]));
      const committed = [...settled.values()].filter(({ fate }) => fate === 'committed').length;
      for (let n = 0; n < committed; n++) rowTimes.push((Date.now() - started) / Math.max(1, committed));
      return inTurns(fresh, CONCURRENCY, async (row) => {
        const { answer, fate } = settled.get(row.index) ?? { fate: 'alone' };
        if (fate === 'committed') return result(row.index, answer as Applied);
        if (fate === 'alone' || fate === undefined) return runOne(row);
        return failed(row, fate.error);
      });
    };
    const replays = rows.filter((row) => before.has(row.index));
    const fresh = rows.filter((row) => !before.has(row.index));
    // The rows' calls end before the budget does: whatever they meet (a stalled DynamoDB), each row
    // has its answer (a 503 for those cut off) and the batch's answer is recorded under its key.
    return withTimeKept(context, ANSWER_TIME_MS, async () => [...(await inTurns(replays, CONCURRENCY, (row) => replay(row, before.get(row.index)))), ...(fresh.length ? await runPacked(fresh) : [])]);
  }

  /**
   * Every row's write planned, then their steps joined into one transaction: every row applied, or
   * none. A row that fails to plan, or whose step's condition fails, is named with its problem.
   */
  async function applyAtomically(rows: readonly Ready[], lang: Lang | undefined, context: HttpContext): Promise<BatchResult[]> {
    const lease = context.idempotencyLease;
    if (lease && (await appliedBatchRows(lease, 1)).size) return applyEach(rows, lang, context);
    const outcome = await commitTogether(
      rows.map((row) => ({ write: writeOf(row, lang), recording: { marker: lease && rowMarker(lease, row.index) } })),
      { maxSteps: MAX_ATOMIC_STEPS, tooMany: tooManySteps },
    );
    if (outcome.committed) return rows.map((row, k) => result(row.index, outcome.answers[k] as Applied));
    return rows.map((row, k) => (outcome.failed.has(k) ? failure(row.index, problemOf(row, outcome.failed.get(k)), row.id) : failure(row.index, notApplied(), row.id)));
  }

  const core = async (event: HttpEvent, context: HttpContext): Promise<HttpResponse> => {
    const caller = callerOf(context);
    const { body, query } = parseInputs({ body: { schema: BatchBody, value: event.body }, query: { schema: langQuery(), value: event.queryStringParameters ?? {} } }) as {
      body: v.InferOutput<typeof BatchBody>;
      query: { lang?: Lang };
    };
    if (body.atomic && body.rows.length > MAX_ATOMIC_ROWS) throw new InvalidInput([{ field: 'rows', message: `holds at most ${MAX_ATOMIC_ROWS} rows when atomic is true` }]);
    const planned = body.rows.map((row, index) => planRow(declaration, row, index));
    authorizeOps(caller, declaration.grant, planned);
    const ready = planned.filter((row): row is Ready => 'input' in row);
    const duplicates = await sameRecords(declaration, ready);
    if (duplicates.length) throw new InvalidInput(duplicates);
    const refused = planned.filter((row): row is Exclude<Planned, Ready> => 'problem' in row).map((row) => failure(row.index, row.problem, row.id));
    const run =
      body.atomic && refused.length
        ? () => Promise.resolve(ready.map((row) => failure(row.index, notApplied(), row.id)))
        : () => (body.atomic ? applyAtomically : applyEach)(ready, query.lang, context);
    const results = [...refused, ...(await actingAs({ apiKey: caller.apiKey, requestId: context.awsRequestId }, run))].sort((a, b) => a.INDEX - b.INDEX);
    const response = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(results) };
    if (context.idempotencyLease) await recordAnswer(context.idempotencyLease, response);
    return response;
  };

  // A batch's access is each op's (authorizeOps, in the core); it costs one unit a row: the one
  // quotaPerKey admitted, and the rest, before anything is written.
  const handler = protectedStack(route, core, { admit: [chargeUnits((request) => Math.max(0, rowCountOf(request) - 1))], idempotency: { keepOnFailure: true } });
  return Object.assign(handler, { route, schemas: { body: BatchBody } });
}

/** The marker of a batch row applied, holding the row its create answered (recorded with it). */
const rowMarker =
  (lease: Lease, index: number): OutcomeRecorder =>
  (applied) =>
    batchRowMarker(lease, index, (applied as Applied | undefined)?.row);

/** An atomic batch whose rows' writes do not fit in one transaction: 400, nothing written. */
const tooManySteps = (steps: number) =>
  new HttpProblem(400, `an atomic batch's rows must fit in one DynamoDB transaction of ${MAX_ATOMIC_STEPS} writes; these make ${steps}: send fewer rows, or atomic: false`, {
    errors: [{ field: 'atomic', message: `its rows make ${steps} writes, more than the ${MAX_ATOMIC_STEPS} one transaction holds` }],
  });

/** The time a batch keeps, past its rows' calls, to record its answer and send it. */
const ANSWER_TIME_MS = 500;

/** What a row needs beyond the longest row so far to start: its writes' round trips on a slow day. */
const ROW_MARGIN_MS = 1_000;

/** A row the batch's time did not leave room for: not applied, for the client to send again. */
const outOfTime = () => new HttpProblem(503, "not applied: the batch's time ran out before this row; send it again", { kind: 'out-of-time' });

/** In an atomic batch that failed, a row that would have been applied was not (RFC 4918's Failed Dependency). */
const notApplied = () => new HttpProblem(424, 'not applied: another row of this atomic batch failed');

/** The grants of every op the batch holds (an upsert both creates and updates): one missing is a 403, nothing written. */
function authorizeOps(caller: ApiKeyRecord, grant: string, rows: readonly Planned[]): void {
  const accesses = new Set(rows.flatMap((row) => (row.op ? ACCESSES_OF[row.op] : [])));
  for (const access of accesses) if (!allows(caller, grant, access)) throw new HttpProblem(403, `this API key may not ${access} ${grant}, which this batch's rows do`);
}

/** The rows a batch's body holds, as its quota counts them (bounded; a body that is not one counts as one request). */
function rowCountOf(request: HttpRequest): number {
  try {
    const rows = (JSON.parse(rawBody(request.event).toString('utf8')) as { rows?: unknown }).rows;
    return Array.isArray(rows) ? Math.min(rows.length, MAX_ROWS) : 1;
  } catch {
    return 1;
  }
}
