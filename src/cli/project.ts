import {
  type Command,
  namingOrganization,
  onStore,
  PreconditionFailed,
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
    const orgId = args.requiredUuid('org');
    const name = args.required('name');
    const id = args.uuid('id');
    return onStore(async ({ database }) => {
      const { createProjectsService, operatorIn } = await import('../tenancy/index.ts');
      const projects = createProjectsService(database);
      const project = await projects
        .create(operatorIn(orgId), { name }, id === undefined ? {} : { id })
        .catch(namingOrganization(orgId));
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
      const { grantProjectAccess } = await import('../tenancy/index.ts');
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
      const { revokeProjectAccess } = await import('../tenancy/index.ts');
      const outcome = await revokeProjectAccess(database, projectId, userId);
      if (outcome === 'unknown-project') throw unknownProject(projectId);
      if (outcome === 'unknown-user') throw unknownUser(userId);
      if (outcome === 'no-access') {
        throw new PreconditionFailed(`user ${userId} has no access to project ${projectId}`);
      }
      return {
        json: { ok: true },
        text: `user ${userId} no longer has access to project ${projectId}`,
      };
    });
  },
};
