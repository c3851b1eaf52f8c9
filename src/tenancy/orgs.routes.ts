import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { badRequest } from '../platform/errors.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { orgScopedHooks } from './org-scoped-hooks.ts';
import {
  adminSecurity,
  OrganizationPatchBody,
  OrganizationResponse,
  OrgIdParams,
} from './orgs.schemas.ts';
import type { OrganizationsService } from './orgs.service.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface OrgRoutesDeps {
  readonly service: OrganizationsService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: Hook;
}

const URL = '/api/v1/orgs/:orgId';

/** Says why rather than `unknown field`: the memory switch exists, but not for this API. */
function memoryFlagIsReadOnly(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const body = request.body;
  const touched = typeof body === 'object' && body !== null && 'memoryEnabled' in body;
  done(
    touched
      ? badRequest('memoryEnabled is read-only here: operators use mnemo admin org set')
      : undefined,
  );
}

/** `GET|PATCH /api/v1/orgs/{orgId}`: any member reads; owners and admins change. */
export function registerOrgRoutes(parent: FastifyInstance, deps: OrgRoutesDeps): void {
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate);
    const common = { tags: ['organizations'], security: adminSecurity, params: OrgIdParams };

    app.get(
      URL,
      {
        schema: {
          ...common,
          summary: 'The organization, with its effective memory switch (any member)',
          response: { 200: OrganizationResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ organization: await deps.service.get(request.caller) }),
    );

    app.patch(
      URL,
      {
        preValidation: memoryFlagIsReadOnly,
        schema: {
          ...common,
          summary: 'Rename the organization or change who may act for others (owners and admins)',
          body: OrganizationPatchBody,
          response: { 200: OrganizationResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        organization: await deps.service.update(request.caller, request.body),
      }),
    );
  });
  registerMethodNotAllowed(parent, URL, ['GET', 'PATCH']);
}
