import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Database } from '../db/database.ts';
import type { ProjectAccess } from '../db/tables.ts';
import { byName, cleanName } from '../orgs/names.ts';
import { findMemberRole } from '../orgs/orgs.repository.ts';
import { isManager, requireManager } from '../orgs/roles.ts';
import { userExists } from '../orgs/users.repository.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { reachProject, requireProjectManager } from './projects.management.ts';
import {
  deleteEmptyProject,
  findProject,
  insertProject,
  listProjects,
  projectDependents,
  renameProject,
  upsertProjectAccess,
} from './projects.repository.ts';
import type { Project, ProjectBody } from './projects.schemas.ts';

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

function presentProject(row: {
  id: string;
  name: string;
  created_at: number;
  access: ProjectAccess | null;
}): Project {
  return {
    id: row.id,
    name: row.name,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.access === null ? {} : { access: row.access }),
  };
}

/**
 * The studio's project management. A project is deleted only once it is empty: while its pool
 * holds active memories, or a working API key is bound to it, the answer is 409 and nothing
 * changes, so no one loses a shared pool to one click.
 */
export function createProjectsService(database: Database) {
  const lock = database.dialect === 'postgres';

  return {
    async list(caller: Caller): Promise<Project[]> {
      const rows = await listProjects(database.db, caller.orgId, {
        accessOf: caller.userId,
        onlyWithAccess: !isManager(caller.role),
      });
      return rows.map(presentProject).sort(byName);
    },

    /** Creates a project; its creator becomes its owner. */
    async create(caller: Caller, body: ProjectBody): Promise<Project> {
      requireManager(caller, 'create projects');
      const name = cleanName(body.name);
      const project = { id: randomUUID(), orgId: caller.orgId, name };
      return database.write(async (trx) => {
        await insertProject(trx, project);
        await upsertProjectAccess(trx, project.id, caller.userId, 'owner');
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: project.id,
          action: 'project.create',
          details: { name },
        });
        const row = await findProject(trx, project.id);
        if (!row) throw notFound('not found');
        return presentProject({ ...row, access: 'owner' });
      });
    },

    async rename(caller: Caller, rawId: string, body: ProjectBody): Promise<Project> {
      const name = cleanName(body.name);
      return database.write(async (trx) => {
        const reached = await reachProject(trx, caller, rawId, { lock });
        requireProjectManager(reached, 'rename the project');
        const { project } = reached;
        if (project.name === name) return presentProject({ ...project, access: reached.access });
        await renameProject(trx, project.id, name);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: project.id,
          action: 'project.update',
          details: { name: { from: project.name, to: name } },
        });
        return presentProject({ ...project, name, access: reached.access });
      });
    },

    async remove(caller: Caller, rawId: string): Promise<void> {
      await database.write(async (trx) => {
        const reached = await reachProject(trx, caller, rawId, { lock });
        requireProjectManager(reached, 'delete the project');
        const { project } = reached;
        const now = Date.now();
        const dependents = await projectDependents(trx, project, now, { lock });
        if (dependents.memories > 0) {
          throw conflict("the project's pool still has memories: delete them first");
        }
        if (dependents.liveKeys > 0) {
          throw conflict('API keys are bound to the project: revoke them first');
        }
        await deleteEmptyProject(trx, project, now);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: project.id,
          action: 'project.delete',
          details: { name: project.name },
        });
      });
    },
  };
}
export type ProjectsService = ReturnType<typeof createProjectsService>;
