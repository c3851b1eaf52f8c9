import type { Database } from '../db/database.ts';
import { deleteOrganizationGrants } from '../projects/projects.repository.ts';
import { deleteMembership } from './orgs.repository.ts';

/**
 * Removes a member together with the member's grants on the organization's projects, in one
 * transaction: a member who leaves loses pool access, and adding the user again must not bring
 * the old grants back. Returns undefined when the user was not a member.
 */
export async function removeMember(
  database: Database,
  orgId: string,
  userId: string,
): Promise<{ revokedGrants: number } | undefined> {
  return database.write(async (trx) => {
    if (!(await deleteMembership(trx, orgId, userId))) return undefined;
    return { revokedGrants: await deleteOrganizationGrants(trx, orgId, userId) };
  });
}
