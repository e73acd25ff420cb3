/**
 * A store's import (docs/moving-from-thelia.md): each kind of record its resource's folder declares (kind.ts), in
 * the order their references need (tax rules and categories before the products that name them),
 * each read in batches by id while the previous batch is written. A kind's id counter is moved past
 * the source's highest id before any of its records is written, so that a create through the API
 * during or after the import never takes an id the import still has to write. Last, the records an
 * earlier run created whose source rows are gone are found, in the reverse order: a product before
 * the rule it may still use.
 */
import { randomUUID } from 'node:crypto';
import { actingAs } from '../db/stamp.js';
import { present } from '../present.js';
import { fromResourceFolders } from '../resource-files.js';
import type { Destination } from './destination.js';
import { inImportOrder, type ImportContext, type ImportKind, type Outcome, type Stored } from './kind.js';
import type { Problem } from './mapping.js';
import type { Progress } from './progress.js';
import type { ReportBuilder } from './report.js';
import type { TheliaSource } from './source.js';

/** Rows read from the source per query, and records handed to the destination at once (one batch read of the table). */
const SOURCE_BATCH = 500;
const DESTINATION_BATCH = 100;

/** Every kind the resources' folders declare (`lib/<module>/import.ts`, its `importKind`), in the order a run brings them. */
export async function loadImportKinds(): Promise<ImportKind[]> {
  return inImportOrder(await fromResourceFolders<ImportKind>('import.ts', 'importKind'));
}

/** Reads the next batch while the current one is written. */
async function* readingAhead<T>(batches: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = batches.next();
  for (;;) {
    const current = await next;
    if (current.done) return;
    next = batches.next();
    // Its failure is seen when it is awaited, not as an unhandled rejection meanwhile.
    next.catch(() => undefined);
    yield current.value;
  }
}

function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** Why a record cannot be referred to once it was skipped (at its mapping or its write). */
const skippedFor = (problems: readonly Problem[]): string => `was skipped (${problems.map((p) => `${p.field}: ${p.message}`).join('; ')})`;

export class StoreImport {
  /**
   * Per kind, every id the source has (skipped rows included: the table's other imported records
   * are missing there), with why it cannot be referred to (absent when it can).
   */
  private readonly sourceIds = new Map<string, Map<number, string | undefined>>();

  constructor(
    private readonly source: TheliaSource,
    private readonly destination: Destination,
    private readonly report: ReportBuilder,
    private readonly progress: Progress,
    private readonly kinds: readonly ImportKind[],
  ) {}

  /** Imports the store; every record it writes is a change made by `import` (docs/changes-events-webhooks.md), under this run's id. */
  async run(runId: string = randomUUID()): Promise<void> {
    await actingAs({ apiKey: 'import', requestId: runId }, async () => {
      for (const kind of this.kinds) await this.records(kind);
      for (const kind of [...this.kinds].reverse()) await this.missing(kind);
    });
  }

  private readonly context: ImportContext = {
    problemOf: (kind, id) => {
      const ids = this.sourceIds.get(kind);
      if (ids?.has(id)) return ids.get(id);
      return present(
        this.kinds.find((declared) => declared.kind === kind),
        `the import kind ${kind}`,
      ).absent;
    },
  };

  private idsOf(kind: ImportKind): Map<number, string | undefined> {
    const ids = this.sourceIds.get(kind.kind) ?? new Map<number, string | undefined>();
    this.sourceIds.set(kind.kind, ids);
    return ids;
  }

  private async records(kind: ImportKind): Promise<void> {
    const ids = this.idsOf(kind);
    const { count, maxId } = await this.source.extent(kind.table);
    this.progress.start(kind.plural, count);
    await this.destination.reserveIds(kind.counter, maxId);
    for (const also of kind.alsoCounts ?? []) await this.destination.reserveIds(also.counter, (await this.source.extent(also.table)).maxId);
    const reading = await kind.begin(this.source, SOURCE_BATCH, this.context);
    for await (const rows of readingAhead(reading.batches)) {
      for (const slice of slices(rows, DESTINATION_BATCH)) {
        // Mapped in order: a row may refer to an earlier one of its kind (a category to its parent).
        const mapped = slice.map((row) => {
          const result = { id: row.id, ...reading.map(row) };
          ids.set(row.id, result.problems && skippedFor(result.problems));
          return result;
        });
        const outcomes = await this.destination.write(
          kind,
          mapped.flatMap((m) => (m.record ? [m.record] : [])),
        );
        for (const m of mapped) {
          const outcome: Outcome = m.problems ? { status: 'skipped', problems: m.problems } : present(outcomes.get(m.id), `the outcome of ${kind.kind} ${m.id}`);
          ids.set(m.id, outcome.status === 'skipped' ? skippedFor(outcome.problems) : undefined);
          this.report.add(kind.kind, m.id, outcome, m.normalized);
        }
        this.progress.advance(slice.length);
      }
    }
    this.progress.finish();
  }

  /** The table's imported records of a kind that the source no longer has. */
  private async missing(kind: ImportKind): Promise<void> {
    const goesWithOwner = (record: Stored) => {
      const owner = kind.ownedBy?.(record);
      return owner !== undefined && !this.sourceIds.get(owner.kind)?.has(owner.id);
    };
    for (const [id, outcome] of await this.destination.missing(kind, new Set(this.idsOf(kind).keys()), goesWithOwner)) this.report.add(kind.kind, id, outcome);
  }
}
