import type { MemberRole } from '../db/tables.ts';
import { managersOnly } from './orgs.errors.ts';

/** Owners and admins manage an organization's members, projects and settings. */
export const isManager = (role: MemberRole): boolean => role === 'owner' || role === 'admin';

/** 403 unless the caller is an owner or admin of the organization. */
export function requireManager(caller: { role: MemberRole }, what: string): void {
  if (!isManager(caller.role)) throw managersOnly(what);
}
