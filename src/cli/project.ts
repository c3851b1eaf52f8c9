import { randomUUID } from 'node:crypto';
import { organizationExists } from '../orgs/orgs.repository.ts';
import { userExists } from '../orgs/users.repository.ts';
import {
  deleteProjectAccess,
  findProject,
  insertProject,
} from '../projects/projects.repository.ts';
import { grantProjectAccess } from '../projects/projects.service.ts';
import {
  type Command,
  onStore,
  PreconditionFailed,
  unknownOrganization,
  unknownProject,
  unknownUser,
} from './command.ts';

const ACCESS = ['viewer', 'editor', 'owner'] as const;

export const projectCreate: Command = {
  path: ['admin', 'project', 'create'],
  usage: 'mnemo admin project create --org ID --name NAME [--id UUID]',
  summary: 'create a project: a memory pool shared by the members it is granted to',
  options: ['org', 'name', 'id'],
  prepare(args) {
    const project = {
      orgId: args.requiredUuid('org'),
      name: args.required('name').trim(),
      id: args.uuid('id') ?? randomUUID(),
    };
    return onStore(async ({ database }) => {
      await database.write(async (trx) => {
        if (!(await organizationExists(trx, project.orgId))) {
          throw unknownOrganization(project.orgId);
        }
        if (await findProject(trx, project.id)) {
          throw new PreconditionFailed(`a project with id ${project.id} already exists`);
        }
        await insertProject(trx, project);
      });
      return {
        json: { id: project.id },
        text: `created project "${project.name}": ${project.id}`,
      };
    });
  },
};

export const projectGrant: Command = {
  path: ['admin', 'project', 'grant'],
  usage: 'mnemo admin project grant --project ID --user ID --access viewer|editor|owner',
  summary: "grant a member of the project's organization access to its pool, or change it",
  options: ['project', 'user', 'access'],
  prepare(args) {
    const projectId = args.requiredUuid('project');
    const userId = args.requiredUuid('user');
    const access = args.requiredChoice('access', ACCESS);
    return onStore(async ({ database }) => {
      const outcome = await grantProjectAccess(database, projectId, userId, access);
      if (outcome === 'unknown-project') throw unknownProject(projectId);
      if (outcome === 'unknown-user') throw unknownUser(userId);
      if (outcome === 'not-a-member') {
        throw new PreconditionFailed(
          `user ${userId} is not a member of the organization of project ${projectId}`,
        );
      }
      return {
        json: { ok: true },
        text: `user ${userId} has ${access} access to project ${projectId}`,
      };
    });
  },
};

export const projectRevoke: Command = {
  path: ['admin', 'project', 'revoke'],
  usage: 'mnemo admin project revoke --project ID --user ID',
  summary: "take away a user's access to a project",
  options: ['project', 'user'],
  prepare(args) {
    const projectId = args.requiredUuid('project');
    const userId = args.requiredUuid('user');
    return onStore(async ({ database }) => {
      if (!(await findProject(database.db, projectId))) throw unknownProject(projectId);
      if (!(await userExists(database.db, userId))) throw unknownUser(userId);
      if (!(await deleteProjectAccess(database.db, projectId, userId))) {
        throw new PreconditionFailed(`user ${userId} has no access to project ${projectId}`);
      }
      return {
        json: { ok: true },
        text: `user ${userId} no longer has access to project ${projectId}`,
      };
    });
  },
};
