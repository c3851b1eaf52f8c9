import type { Database } from '../db/database.ts';
import { listAudit, pageAudit } from './audit.repository.ts';
import { AUDIT_PAGE, type AuditEntry, type AuditPage, type AuditQuery } from './audit.schemas.ts';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.ts';

type AuditRow = Awaited<ReturnType<typeof listAudit>>[number];

function present(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    actorId: row.actor_id,
    targetId: row.target_id,
    action: row.action,
    ...(row.memory_id === null ? {} : { memoryId: row.memory_id }),
    ...(row.details === null ? {} : { details: JSON.parse(row.details) }),
  };
}

/**
 * An organization's audit log read back, newest first. Who may read it is the caller's to
 * check (owners and admins by the API; the operator on the command line). Entries are written
 * by each service in the transaction of its change (audit.repository.ts, recordAudit).
 */
export function createAuditLog(database: Database) {
  return {
    /** A page, after the cursor of the page before (`GET /api/v1/audit`). */
    async page(orgId: string, query: AuditQuery): Promise<AuditPage> {
      const limit = query.limit ?? AUDIT_PAGE.default;
      const after = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
      // One more than the page: whether there is a next page, without a count.
      const rows = await pageAudit(database.db, orgId, limit + 1, after);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        entries: page.map(present),
        next: rows.length > limit && last ? encodeAuditCursor(last) : null,
      };
    },

    /** The newest `limit` entries (`mnemo admin audit list`). */
    async latest(orgId: string, limit: number): Promise<AuditEntry[]> {
      return (await listAudit(database.db, orgId, limit)).map(present);
    },
  };
}
export type AuditLog = ReturnType<typeof createAuditLog>;
