import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from './authenticate.ts';
import { notFoundHere } from './orgs.errors.ts';
import { projectManagersOnly } from './projects.errors.ts';
import { findProjectWithAccess } from './projects.repository.ts';
import { isManager } from './roles.ts';

/**
 * A project as the caller may reach it by id: owners and admins of its organization reach every
 * project, other members those they have access to. Any other id, UUID or not, is 404 with the
 * same answer as an unknown one, so nothing leaks.
 */
export async function reachProject(
  db: Kysely<Tables>,
  caller: Caller,
  rawId: string,
  options: { lock?: boolean } = {},
) {
  const projectId = parseUuid(rawId);
  if (!projectId) throw notFoundHere();
  const found = await findProjectWithAccess(db, caller.orgId, projectId, caller.userId, options);
  const manager = isManager(caller.role);
  if (!found || (!manager && found.access === null)) throw notFoundHere();
  return { ...found, manages: manager || found.access === 'owner' };
}

/** 403 unless the caller is an owner of the project, or an owner or admin of its organization. */
export function requireProjectManager(reached: { manages: boolean }, what: string): void {
  if (!reached.manages) throw projectManagersOnly(what);
}
