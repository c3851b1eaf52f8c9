import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { CollaboratorsService } from './collaborators.service.ts';
import { orgScopedHooks } from './org-scoped-hooks.ts';
import { adminSecurity, OkResponse } from './orgs.schemas.ts';
import {
  CollaboratorBody,
  CollaboratorParams,
  CollaboratorResponse,
  CollaboratorsResponse,
  ProjectIdParams,
} from './projects.schemas.ts';

export interface CollaboratorsRoutesDeps {
  readonly service: CollaboratorsService;
  /** The member of the organization of the project in the path; sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const COLLABORATORS = '/api/v1/projects/:projectId/collaborators';
const COLLABORATOR = `${COLLABORATORS}/:userId`;

/**
 * A project's collaborators: whoever may see the project lists them; its owners, and owners and
 * admins of the organization, grant and take access.
 */
export function registerCollaboratorsRoutes(
  parent: FastifyInstance,
  deps: CollaboratorsRoutesDeps,
): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate);
    const common = { tags: ['projects'], security: adminSecurity };

    app.get(
      COLLABORATORS,
      {
        schema: {
          ...common,
          summary:
            "List the project's collaborators (anyone with access to it, and owners and admins)",
          params: ProjectIdParams,
          response: { 200: CollaboratorsResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        collaborators: await service.list(request.caller, request.params.projectId),
      }),
    );

    app.put(
      COLLABORATOR,
      {
        schema: {
          ...common,
          summary:
            "Grant or change a member's access to the project (the project's owners, and owners and admins); 400 for a user who is not a member of the organization; never the last project owner: 409",
          params: CollaboratorParams,
          body: CollaboratorBody,
          response: { 200: CollaboratorResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        collaborator: await service.set(
          request.caller,
          request.params.projectId,
          request.params.userId,
          request.body.access,
        ),
      }),
    );

    app.delete(
      COLLABORATOR,
      {
        schema: {
          ...common,
          summary:
            "Take a user's access to the project (the project's owners, and owners and admins); never the last project owner: 409",
          params: CollaboratorParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.remove(request.caller, request.params.projectId, request.params.userId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, COLLABORATORS, ['GET']);
  registerMethodNotAllowed(parent, COLLABORATOR, ['PUT', 'DELETE']);
}
