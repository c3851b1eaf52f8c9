import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { adminSecurity, OkResponse, OrgIdParams, orgScopedHooks } from '../tenancy/index.ts';
import {
  AppCreateBody,
  AppParams,
  AppPatchBody,
  AppResponse,
  AppsResponse,
  AppWithSecretResponse,
} from './apps.schemas.ts';
import type { AppsService } from './apps.service.ts';

export interface AppsRoutesDeps {
  readonly service: AppsService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const APPS = '/api/v1/orgs/:orgId/apps';
const APP = `${APPS}/:appId`;
const SECRET = `${APP}/secret`;

/** An organization's apps, managed by its owners and admins (src/apps/apps.service.ts). */
export function registerAppsRoutes(parent: FastifyInstance, deps: AppsRoutesDeps): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    // The new secret's POST sends nothing.
    orgScopedHooks(scoped, deps.authenticate, { body: 'optional' });
    const common = { tags: ['apps'], security: adminSecurity };

    app.get(
      APPS,
      {
        schema: {
          ...common,
          summary: "The organization's apps, and this server's request rates (owners and admins)",
          params: OrgIdParams,
          response: { 200: AppsResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        apps: await service.list(request.caller),
        rateLimits: service.rateLimits,
      }),
    );

    app.post(
      APPS,
      {
        schema: {
          ...common,
          summary:
            'Register an app: an OAuth client for client_credentials whose tokens act as a member of the organization with the role given; its secret is shown once (owners and admins)',
          params: OrgIdParams,
          body: AppCreateBody,
          response: { 201: AppWithSecretResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.create(request.caller, request.body)),
    );

    app.get(
      APP,
      {
        schema: {
          ...common,
          summary: 'An app (owners and admins)',
          params: AppParams,
          response: { 200: AppResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ app: await service.get(request.caller, request.params.appId) }),
    );

    app.patch(
      APP,
      {
        schema: {
          ...common,
          summary:
            'Rename an app, change its role or its rate limit (a new limit applies to tokens issued from then on) (owners and admins)',
          params: AppParams,
          body: AppPatchBody,
          response: { 200: AppResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        app: await service.update(request.caller, request.params.appId, request.body),
      }),
    );

    app.post(
      SECRET,
      {
        schema: {
          ...common,
          summary:
            'Replace the app’s secret: the new one is shown once, the old one stops working at once (owners and admins)',
          params: AppParams,
          response: { 200: AppWithSecretResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => service.rotateSecret(request.caller, request.params.appId),
    );

    app.delete(
      APP,
      {
        schema: {
          ...common,
          summary:
            'Revoke an app: its tokens are refused from their next request; its identity is erased with its own memories and what it contributed to project pools (owners and admins). Again: 404',
          params: AppParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.revoke(request.caller, request.params.appId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, APPS, ['GET', 'POST']);
  registerMethodNotAllowed(parent, APP, ['GET', 'PATCH', 'DELETE']);
  registerMethodNotAllowed(parent, SECRET, ['POST']);
}
