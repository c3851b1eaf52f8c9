import type { Kysely } from 'kysely';
import { newRowId } from '../db/row-id.ts';
import type { Tables } from '../db/tables.ts';

export interface AuditEntry {
  readonly orgId: string;
  readonly actorId: string;
  readonly targetId: string;
  readonly action: string;
  readonly memoryId?: string | undefined;
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
