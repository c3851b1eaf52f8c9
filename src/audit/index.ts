/**
 * The audit journal: every change of the platform, recorded in the transaction that made it, and
 * read back by page. This file is the part's front door: what other parts may use of it. The rest
 * of the folder is private to it.
 */
export {
  listAudit,
  OPERATOR_ACTOR_ID,
  OPERATOR_NAME,
  pageAudit,
  recordAudit,
} from './audit.repository.ts';
export { AUDIT_PAGE, AuditEntry, AuditPage, AuditQuery } from './audit.schemas.ts';
export { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.ts';
