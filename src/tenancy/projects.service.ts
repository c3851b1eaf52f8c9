import { randomUUID } from 'node:crypto';
import { OPERATOR_ACTOR_ID, recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { ProjectAccess } from '../db/tables.ts';
import type { Caller } from './authenticate.ts';
import { byName, cleanName } from './names.ts';
import { isOperator } from './operator.ts';
import { noOrganization, notFoundHere } from './orgs.errors.ts';
import { findMemberRole, organizationExists } from './orgs.repository.ts';
import { keysBoundToProject, poolNotEmpty, projectIdTaken } from './projects.errors.ts';
import { reachProject, requireProjectManager } from './projects.management.ts';
import {
  deleteEmptyProject,
  deleteProjectAccess,
  findProject,
  findProjectAccess,
  insertProject,
  listProjects,
  projectDependents,
  renameProject,
  upsertProjectAccess,
} from './projects.repository.ts';
import type { Project, ProjectBody } from './projects.schemas.ts';
import { isManager, requireManager } from './roles.ts';
import { userExists } from './users.repository.ts';

export type GrantOutcome = 'granted' | 'unknown-project' | 'unknown-user' | 'not-a-member';
export type RevokeOutcome = 'revoked' | 'unknown-project' | 'unknown-user' | 'no-access';

/**
 * The operator grants or changes a user's access to a project (`mnemo admin project grant`),
 * audited in the project's organization. Only members of that organization can hold access;
 * the membership is read (and on PostgreSQL locked) in the grant's transaction, so a removal of
 * the member running at the same time cannot leave a grant behind.
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
    const previous = await findProjectAccess(trx, projectId, userId);
    if (previous !== access) {
      await upsertProjectAccess(trx, projectId, userId, access);
      await recordAudit(trx, {
        orgId: project.org_id,
        actorId: OPERATOR_ACTOR_ID,
        targetId: userId,
        action: 'collaborator.set',
        details: { projectId, access, previous },
      });
    }
    return 'granted';
  });
}

/**
 * The operator takes a user's access to a project away (`mnemo admin project revoke`), audited
 * in the project's organization. Unlike a project owner in the API, it may remove the last
 * owner: it is who mends a project left in the wrong hands.
 */
export async function revokeProjectAccess(
  database: Database,
  projectId: string,
  userId: string,
): Promise<RevokeOutcome> {
  return database.write(async (trx) => {
    const project = await findProject(trx, projectId);
    if (!project) return 'unknown-project';
    if (!(await userExists(trx, userId))) return 'unknown-user';
    const previous = await findProjectAccess(trx, projectId, userId);
    if (previous === null) return 'no-access';
    await deleteProjectAccess(trx, projectId, userId);
    await recordAudit(trx, {
      orgId: project.org_id,
      actorId: OPERATOR_ACTOR_ID,
      targetId: userId,
      action: 'collaborator.remove',
      details: { projectId, access: previous },
    });
    return 'revoked';
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

    /**
     * Creates a project; its creator becomes its owner. The operator names the organization
     * (404 when there is none such) and may choose the id (409 when it is taken); it owns
     * nothing, so its project starts with no owner, for `mnemo admin project grant` to give.
     */
    async create(
      caller: Caller,
      body: ProjectBody,
      options: { readonly id?: string } = {},
    ): Promise<Project> {
      requireManager(caller, 'create projects');
      const name = cleanName(body.name);
      const project = { id: options.id ?? randomUUID(), orgId: caller.orgId, name };
      const operator = isOperator(caller);
      return database.write(async (trx) => {
        // An API caller was admitted into its organization; the operator only names one.
        if (operator && !(await organizationExists(trx, caller.orgId))) {
          throw noOrganization(caller.orgId);
        }
        if (options.id !== undefined && (await findProject(trx, options.id))) {
          throw projectIdTaken(options.id);
        }
        await insertProject(trx, project);
        if (!operator) await upsertProjectAccess(trx, project.id, caller.userId, 'owner');
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: project.id,
          action: 'project.create',
          details: { name },
        });
        const row = await findProject(trx, project.id);
        if (!row) throw notFoundHere();
        return presentProject({ ...row, access: operator ? null : 'owner' });
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
          throw poolNotEmpty();
        }
        if (dependents.liveKeys > 0) {
          throw keysBoundToProject();
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
