import type { Kysely } from 'kysely';
import { newRowId } from '../db/row-id.ts';
import type { Tables } from '../db/tables.ts';

export interface AuditEntry {
  readonly orgId: string;
  readonly actorId: string;
  readonly targetId: string;
  readonly action: string;
  readonly memoryId?: string | undefined;
  /** What the act was about or changed; stored as JSON. */
  readonly details?: Record<string, unknown>;
}

/** Records an act done for another member. Pass the write's transaction to keep them together. */
export async function recordAudit(db: Kysely<Tables>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newRowId(),
      org_id: entry.orgId,
      actor_id: entry.actorId,
      target_id: entry.targetId,
      action: entry.action,
      memory_id: entry.memoryId ?? null,
      details: entry.details === undefined ? null : JSON.stringify(entry.details),
      at: Date.now(),
    })
    .execute();
}

export async function listAudit(db: Kysely<Tables>, orgId: string, limit = 100) {
  return (
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('at', 'desc')
      // Ids are time-ordered (UUIDv7): entries of one millisecond keep the order they were made in.
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  );
}

/** Where a page of the audit log starts: after this entry, in newest-first order. */
export interface AuditPosition {
  readonly at: number;
  readonly id: string;
}

/** One page of an organization's audit log, newest first, after `position` when given. */
export async function pageAudit(
  db: Kysely<Tables>,
  orgId: string,
  limit: number,
  position?: AuditPosition,
) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .$if(position !== undefined, (q) =>
      q.where((eb) => {
        const { at, id } = position as AuditPosition;
        return eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]);
      }),
    )
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
