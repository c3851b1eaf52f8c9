import type { Database } from '../db/database.ts';
import type { ProjectAccess } from '../db/tables.ts';
import { findMemberRole } from '../orgs/orgs.repository.ts';
import { userExists } from '../orgs/users.repository.ts';
import { findProject, upsertProjectAccess } from './projects.repository.ts';

export type GrantOutcome = 'granted' | 'unknown-project' | 'unknown-user' | 'not-a-member';

/**
 * Grants or changes a user's access to a project. Only members of the project's organization
 * can hold access; the membership is read (and on PostgreSQL locked) in the grant's transaction,
 * so a removal of the member running at the same time cannot leave a grant behind.
 */
export async function grantProjectAccess(
  database: Database,
  projectId: string,
  userId: string,
  access: ProjectAccess,
): Promise<GrantOutcome> {
  return database.write(async (trx) => {
    const project = await findProject(trx, projectId);
    if (!project) return 'unknown-project';
    if (!(await userExists(trx, userId))) return 'unknown-user';
    const lock = database.dialect === 'postgres';
    const role = await findMemberRole(trx, project.org_id, userId, { lock });
    if (role === undefined) return 'not-a-member';
    await upsertProjectAccess(trx, projectId, userId, access);
    return 'granted';
  });
}
