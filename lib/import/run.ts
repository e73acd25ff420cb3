/**
 * A store's import (CONTRACT §10): tax rules and categories first (products refer to them), then
 * products, then customers; each read in batches by id while the previous batch is written. Id counters are moved
 * past the source's highest ids before any record is written, so that a create through the API
 * during or after the import never takes an id the import still has to write. Last, the records an
 * earlier run created whose source rows are gone are found, customers first (they hold nothing),
 * then products, then categories and rules (which a product may still use).
 */
import { present } from '../present.js';
import { randomUUID } from 'node:crypto';
import { actingAs } from '../db/changes.js';
import type { Destination, Outcome } from './destination.js';
import { mapCategory, mapCustomer, mapProduct, mapTaxRule, type Mapped, type ProductContext } from './mapping.js';
import type { Progress } from './progress.js';
import { KINDS, plural, type Kind } from './kinds.js';
import type { ReportBuilder } from './report.js';
import type { SourceTable, TheliaSource } from './source.js';

/** Rows read from the source per query, and records handed to the destination at once (one batch read of the table). */
const SOURCE_BATCH = 500;
const DESTINATION_BATCH = 100;

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

interface Step<Row extends { id: number }, R extends { id: number }> {
  kind: Kind;
  table: SourceTable;
  batches: AsyncGenerator<Row[]>;
  map: (row: Row) => Mapped<R>;
  write: (records: R[]) => Promise<Map<number, Outcome>>;
}

export class StoreImport {
  /** Why each rule of the source cannot be used by products; absent when it can. */
  private readonly ruleProblems = new Map<number, string | undefined>();
  /** Every id the source has, per kind, skipped rows included: the table's other imported records are missing there. */
  private readonly sourceIds = Object.fromEntries(KINDS.map((kind) => [kind, new Set<number>()])) as Record<Kind, Set<number>>;

  constructor(
    private readonly source: TheliaSource,
    private readonly destination: Destination,
    private readonly report: ReportBuilder,
    private readonly progress: Progress,
  ) {}

  /** Imports the store; every record it writes is a change made by `import` (CONTRACT §11), under this run's id. */
  async run(runId: string = randomUUID()): Promise<void> {
    await actingAs({ apiKey: 'import', requestId: runId }, async () => {
      await this.taxRules();
      await this.categories();
      await this.products();
      await this.customers();
      for (const kind of [...KINDS].reverse()) await this.missing(kind);
    });
  }

  private async taxRules(): Promise<void> {
    const { count, maxId } = await this.source.extent('tax_rule');
    this.progress.start('tax rules', count);
    await this.destination.reserveIds('tax rule', maxId);
    let defaultRule: number | undefined;
    for await (const rules of readingAhead(this.source.taxRules(SOURCE_BATCH))) {
      for (const rule of rules) {
        const mapped = mapTaxRule(rule);
        // The first rule the source flags is its default; another flagged one is not guessed at.
        const otherDefault = rule.isDefault ? defaultRule : undefined;
        if (rule.isDefault) defaultRule ??= rule.id;
        let outcome: Outcome;
        if (mapped.problems) outcome = { status: 'skipped', problems: mapped.problems };
        else if (otherDefault !== undefined) {
          outcome = { status: 'skipped', problems: [{ field: 'tax_rule.is_default', message: `tax rule ${otherDefault} is the default too, and a store has one default rule` }] };
        } else outcome = await this.destination.taxRule(mapped.record);
        this.ruleProblems.set(rule.id, outcome.status === 'skipped' ? `was skipped (${outcome.problems.map((p) => `${p.field}: ${p.message}`).join('; ')})` : undefined);
        this.sourceIds['tax rule'].add(rule.id);
        this.report.add('tax rule', rule.id, outcome, mapped.normalized);
        this.progress.advance(1);
      }
    }
    this.progress.finish();
  }

  /**
   * Categories come parents first (the source's walk of its tree), so a category's parent is known
   * when it is mapped: skipped, or not reached from the root, it keeps its children out.
   */
  private async categories(): Promise<void> {
    const problems = new Map<number, string | undefined>();
    await this.records({
      kind: 'category',
      table: 'category',
      batches: this.source.categories(SOURCE_BATCH),
      map: (category) => {
        const mapped = mapCategory(category, { parentProblem: (id) => (problems.has(id) ? problems.get(id) : 'is not a category of the source that its root reaches') });
        problems.set(category.id, mapped.problems ? 'was skipped' : undefined);
        return mapped;
      },
      write: (records) => this.destination.categories(records),
    });
  }

  private async productContext(): Promise<ProductContext> {
    const currencies = await this.source.defaultCurrencies();
    const [currency] = currencies;
    return {
      currency:
        currencies.length === 1 && currency !== undefined
          ? { id: currency }
          : { problem: currencies.length ? `the source has ${currencies.length} default currencies (${currencies.join(', ')})` : 'the source has no default currency' },
      taxRuleProblem: (id) => (this.ruleProblems.has(id) ? this.ruleProblems.get(id) : 'is not a tax rule of the source'),
    };
  }

  private async products(): Promise<void> {
    const context = await this.productContext();
    await this.records({
      kind: 'product',
      table: 'product',
      batches: this.source.products(SOURCE_BATCH, 'id' in context.currency ? context.currency.id : undefined),
      map: (product) => mapProduct(product, context),
      write: (records) => this.destination.products(records),
    });
  }

  private async customers(): Promise<void> {
    await this.records({
      kind: 'customer',
      table: 'customer',
      batches: this.source.customers(SOURCE_BATCH),
      map: mapCustomer,
      write: (records) => this.destination.customers(records),
    });
  }

  private async records<Row extends { id: number }, R extends { id: number }>(step: Step<Row, R>): Promise<void> {
    const { count, maxId } = await this.source.extent(step.table);
    this.progress.start(plural(step.kind), count);
    await this.destination.reserveIds(step.kind, maxId);
    for await (const rows of readingAhead(step.batches)) {
      for (const slice of slices(rows, DESTINATION_BATCH)) {
        const mapped = slice.map((row) => ({ id: row.id, ...step.map(row) }));
        const outcomes = await step.write(mapped.flatMap((m) => (m.record ? [m.record] : [])));
        for (const m of mapped) {
          this.sourceIds[step.kind].add(m.id);
          this.report.add(step.kind, m.id, m.problems ? { status: 'skipped', problems: m.problems } : present(outcomes.get(m.id), `the outcome of ${step.kind} ${m.id}`), m.normalized);
        }
        this.progress.advance(slice.length);
      }
    }
    this.progress.finish();
  }

  /** The table's imported records of a kind that the source no longer has. */
  private async missing(kind: Kind): Promise<void> {
    for (const [id, outcome] of await this.destination.missing(kind, this.sourceIds[kind])) this.report.add(kind, id, outcome);
  }
}
