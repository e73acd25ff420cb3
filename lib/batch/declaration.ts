/**
 * What a resource declares of itself for batch writes (docs/batches-and-client.md; lib/http/batch.ts runs them):
 * each op's input schema and operation (the write it plans: lib/http/batch.ts commits it alone, or
 * joined with the other rows'), how its record is read back, and, for `upsert`, its natural key. The
 * resource's batch.ts fills it with its own schemas and operations.
 */
import type * as v from 'valibot';
import type { Lang } from '../reference/index.js';
import type { Row } from '../row.js';
import type { Write } from '../db/write-plan.js';

type Schema = v.GenericSchema<unknown, unknown>;

export interface BatchDeclaration<Create extends Schema = Schema, Update extends Schema = Schema> {
  /** The registry's folder: the single routes `<folder>/create`, `update`, `delete` give each op's status. */
  readonly folder: string;
  /** The grant its routes need (the registry's `protectedBy`). */
  readonly grant: string;
  // Operations are methods: a declaration of its own inputs is then one of any inputs, as the handler takes it.
  readonly create: { schema: Create; run(input: v.InferOutput<Create>, lang: Lang | undefined): Write<Row> };
  /** `idInBody`: the update's input holds `id` (customers, categories), else the id goes beside it (products). */
  readonly update: { schema: Update; idInBody: boolean; run(id: number, input: v.InferOutput<Update>, version: number | undefined, lang: Lang | undefined): Write<Row | undefined> };
  remove(id: number, version: number | undefined): Write<void>;
  /** The record's row, for a row applied by an earlier attempt of the batch that did not record it. */
  read(id: number, lang: Lang | undefined): Promise<Row>;
  /**
   * `upsert`: the create's input names the record by its natural key (a product's `ref`, a
   * customer's `email`): the key as compared, the record that holds it, and its update by the
   * create's fields. None: the resource has no natural key, and takes no upsert.
   */
  readonly upsert?: {
    readonly field: string;
    key(input: v.InferOutput<Create>): string;
    find(input: v.InferOutput<Create>): Promise<number | undefined>;
    update(id: number, input: v.InferOutput<Create>, lang: Lang | undefined): Write<Row | undefined>;
  };
}

/** Keeps a declaration's input types checked against its operations. */
export const defineBatch = <Create extends Schema, Update extends Schema>(declaration: BatchDeclaration<Create, Update>): BatchDeclaration<Create, Update> => declaration;
