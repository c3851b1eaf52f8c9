import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { orgScopedHooks } from './org-scoped-hooks.ts';
import { adminSecurity, OkResponse, OrgIdParams } from './orgs.schemas.ts';
import {
  ProjectBody,
  ProjectIdParams,
  ProjectResponse,
  ProjectsResponse,
} from './projects.schemas.ts';
import type { ProjectsService } from './projects.service.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface ProjectsRoutesDeps {
  readonly service: ProjectsService;
  /** The member of the organization in the path; sets `request.caller`. */
  readonly authenticateOrg: Hook;
  /** The member of the organization of the project in the path; sets `request.caller`. */
  readonly authenticateProject: Hook;
}

const ORG_PROJECTS = '/api/v1/orgs/:orgId/projects';
const PROJECT = '/api/v1/projects/:projectId';

/**
 * Projects: members list those they have access to (owners and admins all); owners and admins
 * create them; the project's owners, and owners and admins, rename and delete them. A project is
 * deleted only when empty: 409 while its pool has active memories or a working API key is bound
 * to it.
 */
export function registerProjectsRoutes(parent: FastifyInstance, deps: ProjectsRoutesDeps): void {
  const { service } = deps;
  const common = { tags: ['projects'], security: adminSecurity };

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticateOrg);

    app.get(
      ORG_PROJECTS,
      {
        schema: {
          ...common,
          summary: 'List the projects the caller has access to (owners and admins: all)',
          params: OrgIdParams,
          response: { 200: ProjectsResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ projects: await service.list(request.caller) }),
    );

    app.post(
      ORG_PROJECTS,
      {
        schema: {
          ...common,
          summary: 'Create a project; its creator becomes its owner (owners and admins)',
          params: OrgIdParams,
          body: ProjectBody,
          response: { 201: ProjectResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) =>
        reply.code(201).send({ project: await service.create(request.caller, request.body) }),
    );
  });

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticateProject);

    app.patch(
      PROJECT,
      {
        schema: {
          ...common,
          summary: "Rename a project (the project's owners, and owners and admins)",
          params: ProjectIdParams,
          body: ProjectBody,
          response: { 200: ProjectResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        project: await service.rename(request.caller, request.params.projectId, request.body),
      }),
    );

    app.delete(
      PROJECT,
      {
        schema: {
          ...common,
          summary:
            "Delete an empty project (the project's owners, and owners and admins); 409 while its pool has memories or a working API key is bound to it",
          params: ProjectIdParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.remove(request.caller, request.params.projectId);
        return { ok: true as const };
      },
    );
  });

  registerMethodNotAllowed(parent, ORG_PROJECTS, ['GET', 'POST']);
  registerMethodNotAllowed(parent, PROJECT, ['PATCH', 'DELETE']);
}
