/**
 * An audited entity's changes (changes.ts): the steps that record how a record changed, in the
 * transaction that changes it, with the fields its row shows.
 */
import { changeSteps, diffFields, type AuditDeclaration } from './changes.js';
import type { WriteStamp } from './stamp.js';
import type { WriteStep } from './transactions.js';
import type { Id, Versioned } from './entity-declaration.js';

export function auditOf<R, I extends Id>(entity: { id: (record: R) => I; audit: (AuditDeclaration<R> & { version?: (record: R) => number }) | undefined }) {
  const { id, audit } = entity;
  const versionOf = (record: R): number => audit?.version?.(record) ?? Number((record as Partial<Versioned>).version ?? 1);
  /** The steps that record a record created (no `before`), changed, or deleted (no `after`) by the write `stamp` stamps; none when the entity is not audited. */
  return (stamp: WriteStamp, before: R | undefined, after: R | undefined): WriteStep[] => {
    const record = after ?? before;
    if (!audit || record === undefined) return [];
    const type = before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated';
    // A record's last change is dated by its `updatedAt`, where it has one: the new change comes after it.
    const previousAt = (before as { updatedAt?: unknown } | undefined)?.updatedAt;
    return changeSteps(
      stamp,
      audit.resource,
      id(record),
      type,
      versionOf(record),
      diffFields(before && audit.fields(before), after && audit.fields(after)),
      typeof previousAt === 'string' ? previousAt : undefined,
    );
  };
}
