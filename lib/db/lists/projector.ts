/**
 * The search index is a projection of the change feed (docs/lists.md), kept as a webhook lane
 * follows it: from the position the index notes, a round reads which records of the kinds it keeps
 * the feed names (not their changes: a document is the record as it is now), reads those records,
 * puts or removes their documents, and notes the position after them. An index that notes no
 * position (new, lost, or past the feed's retention) is rebuilt: the feed's end is taken first,
 * every record is walked into it, and it follows from that end, so that no write made during the
 * walk is missed (one made twice is put twice, the same).
 */
import { present } from '../../present.js';
import { Gone } from '../errors.js';
import { feedEnd, followRecords, type FeedPosition } from '../feed.js';
import { DOCUMENT_FORM, isWhole, type IndexWrite, type SearchEngine } from './engine.js';
import type { ListDeclaration } from './arguments.js';
import type { SearchDocument } from './query.js';

/** What the index keeps of one kind of record: how to read some by id, and all of them a page at a time. */
export interface Projection {
  /** The index's name for the kind (`products`). */
  kind: string;
  /** The kind's name in the change feed (`product`). */
  resource: string;
  /** The documents of the records that still exist among `ids`. */
  documents(ids: readonly number[]): Promise<SearchDocument[]>;
  /** Every record's document, a page at a time. */
  walk(): AsyncGenerator<SearchDocument[]>;
}

/** Changes a round reads from the feed at most. */
const ROUND = 250;

export interface ProjectionRun {
  /** Whether the index was rebuilt from the table. */
  rebuilt: boolean;
  /** Documents put or removed. */
  written: number;
  /** Where the index now stands in the feed. */
  position: FeedPosition;
}

/** The position an index notes: the feed's, and the form of its documents (engine.ts). */
const noted = (position: FeedPosition): FeedPosition => ({ ...position, form: DOCUMENT_FORM }) as FeedPosition;

/** Brings the index up to the feed's end (rounds until a round finds nothing more), or rebuilds it. */
export async function project(engine: SearchEngine, projections: readonly Projection[]): Promise<ProjectionRun> {
  const stored = await engine.position();
  if (!isWhole(stored)) return rebuild(engine, projections);
  const { form: _, ...from } = stored as FeedPosition & { form: number };
  const byResource = new Map(projections.map((projection) => [projection.resource, projection]));
  let position = from;
  let written = 0;
  for (;;) {
    const page = await followRecords({ from: position, wanted: (resource) => byResource.has(resource), limit: ROUND }).catch((error: unknown) => {
      if (error instanceof Gone) return undefined;
      throw error;
    });
    if (!page) return rebuild(engine, projections);
    if (page.next.n === position.n && page.next.i === position.i) return { rebuilt: false, written, position };
    const idsByResource = new Map<string, Set<number>>();
    for (const record of page.records) idsByResource.set(record.resource, (idsByResource.get(record.resource) ?? new Set()).add(Number(record.entityId)));
    const writes = await Promise.all(
      [...idsByResource].map(async ([resource, ids]): Promise<IndexWrite> => {
        // The feed was read for these resources only (`wanted`).
        const projection = present(byResource.get(resource), `the projection of ${resource}`);
        const put = await projection.documents([...ids]);
        const stillThere = new Set(put.map((document) => document.id));
        return { kind: projection.kind, put, remove: [...ids].filter((id) => !stillThere.has(id)) };
      }),
    );
    await engine.write(writes, noted(page.next));
    written += writes.reduce((sum, write) => sum + write.put.length + write.remove.length, 0);
    position = page.next;
  }
}

async function rebuild(engine: SearchEngine, projections: readonly Projection[]): Promise<ProjectionRun> {
  const position = await feedEnd();
  await engine.clear(projections.map((projection) => projection.kind));
  let written = 0;
  for (const projection of projections) {
    for await (const documents of projection.walk()) {
      await engine.write([{ kind: projection.kind, put: documents, remove: [] }], undefined);
      written += documents.length;
    }
  }
  await engine.write([], noted(position));
  // What was written during the walk follows from the end taken before it.
  const caughtUp = await project(engine, projections);
  return { rebuilt: true, written: written + caughtUp.written, position: caughtUp.position };
}

/** The projection of a declared list's records: read by id, walked a page at a time. */
export function projectionOf<R>(list: ListDeclaration<R>, records: { readMany(ids: readonly number[]): Promise<R[]>; pages(): AsyncGenerator<R[]> }): Projection {
  return {
    kind: list.kind,
    resource: list.resource,
    documents: async (ids) => (await records.readMany(ids)).map(list.document),
    async *walk() {
      for await (const page of records.pages()) yield page.map(list.document);
    },
  };
}
