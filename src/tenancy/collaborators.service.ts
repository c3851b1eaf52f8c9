import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { ProjectAccess, UserKind } from '../db/tables.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from './authenticate.ts';
import { findMemberRole } from './orgs.repository.ts';
import {
  collaboratorNotFound,
  collaboratorNotMember,
  lastProjectOwner,
} from './projects.errors.ts';
import { reachProject, requireProjectManager } from './projects.management.ts';
import {
  countProjectOwners,
  deleteProjectAccess,
  findProjectAccess,
  listCollaborators,
  upsertProjectAccess,
} from './projects.repository.ts';
import type { Collaborator } from './projects.schemas.ts';

function presentCollaborator(row: {
  id: string;
  kind: UserKind;
  email: string | null;
  name: string | null;
  access: ProjectAccess;
}): Collaborator {
  return {
    userId: row.id,
    kind: row.kind,
    ...(row.email === null ? {} : { email: row.email }),
    ...(row.name === null ? {} : { name: row.name }),
    access: row.access,
  };
}

/**
 * Who has access to a project. Its owners, and owners and admins of the organization, grant
 * and take access; only members of the project's organization can hold it (as
 * `mnemo admin project grant`), and a project that has owners keeps at least one. Each change
 * runs with the project's row taken for update (PostgreSQL) and writes one audit row.
 */
export function createCollaboratorsService(database: Database) {
  const lock = database.dialect === 'postgres';

  return {
    async list(caller: Caller, rawProjectId: string): Promise<Collaborator[]> {
      const { project } = await reachProject(database.db, caller, rawProjectId);
      return (await listCollaborators(database.db, project.id)).map(presentCollaborator);
    },

    async set(
      caller: Caller,
      rawProjectId: string,
      rawUserId: string,
      access: ProjectAccess,
    ): Promise<Collaborator> {
      return database.write(async (trx) => {
        const reached = await reachProject(trx, caller, rawProjectId, { lock });
        requireProjectManager(reached, "manage the project's collaborators");
        const { project } = reached;
        const userId = parseUuid(rawUserId);
        if (!userId) throw collaboratorNotFound();
        // Read (and on PostgreSQL locked) here, so a removal of the member at the same time
        // cannot leave a grant behind.
        if ((await findMemberRole(trx, project.org_id, userId, { lock })) === undefined) {
          throw collaboratorNotMember();
        }
        const before = await findProjectAccess(trx, project.id, userId);
        if (before !== access) {
          if (before === 'owner' && (await countProjectOwners(trx, project.id)) <= 1) {
            throw lastProjectOwner('demoted');
          }
          await upsertProjectAccess(trx, project.id, userId, access);
          await recordAudit(trx, {
            orgId: caller.orgId,
            actorId: caller.userId,
            targetId: userId,
            action: 'collaborator.set',
            details: { projectId: project.id, access, previous: before },
          });
        }
        const row = (await listCollaborators(trx, project.id)).find((c) => c.id === userId);
        if (!row) throw collaboratorNotFound();
        return presentCollaborator(row);
      });
    },

    async remove(caller: Caller, rawProjectId: string, rawUserId: string): Promise<void> {
      await database.write(async (trx) => {
        const reached = await reachProject(trx, caller, rawProjectId, { lock });
        requireProjectManager(reached, "manage the project's collaborators");
        const { project } = reached;
        const userId = parseUuid(rawUserId);
        if (!userId) throw collaboratorNotFound();
        const before = await findProjectAccess(trx, project.id, userId);
        if (before === null) throw collaboratorNotFound();
        if (before === 'owner' && (await countProjectOwners(trx, project.id)) <= 1) {
          throw lastProjectOwner('removed');
        }
        await deleteProjectAccess(trx, project.id, userId);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: userId,
          action: 'collaborator.remove',
          details: { projectId: project.id, access: before },
        });
      });
    },
  };
}
export type CollaboratorsService = ReturnType<typeof createCollaboratorsService>;
