/**
 * The audit journal: every change of the platform, recorded in the transaction that made it, and
 * read back by page. This file is the part's front door: what other parts may use of it. The rest
 * of the folder is private to it.
 */
export { recordAudit } from './audit.repository.ts';
export { AuditEntry, AuditPage, AuditQuery } from './audit.schemas.ts';
export type { AuditLog } from './audit-log.service.ts';
export { createAuditLog } from './audit-log.service.ts';
export { OPERATOR_ACTOR_ID, OPERATOR_NAME } from './operator-actor.ts';
