import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES, rulesNoSchemaStates } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { CURSOR_RULE_NO_SCHEMA_STATES } from '../platform/paging.ts';
import { adminSecurity, OkResponse, OrgIdParams, orgScopedHooks } from '../tenancy/index.ts';
import {
  EndUserBody,
  EndUserDetailResponse,
  EndUserParams,
  EndUserResponse,
  EndUsersQuery,
  EndUsersResponse,
} from './end-users.schemas.ts';
import type { EndUsersService } from './end-users.service.ts';

export interface EndUsersRoutesDeps {
  readonly service: EndUsersService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const END_USERS = '/api/v1/orgs/:orgId/end-users';
const END_USER = `${END_USERS}/:externalId`;

/**
 * The end users an app remembers, by the app's own ids: registered (idempotently), read, listed
 * and erased by the organization's owners and admins and by its apps with the admin role.
 */
export function registerEndUsersRoutes(parent: FastifyInstance, deps: EndUsersRoutesDeps): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate, { body: 'optional' });
    const common = { tags: ['end users'], security: adminSecurity };

    app.put(
      END_USER,
      {
        schema: {
          ...common,
          summary:
            'Register an end user under the app’s own id, or find the one registered: 201 when created, 200 when it existed (a name sent replaces the one held). Owners and admins, and apps with the admin role',
          params: EndUserParams,
          body: EndUserBody,
          response: { 200: EndUserResponse, 201: EndUserResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) => {
        const { created, endUser } = await service.register(
          request.caller,
          request.params.externalId,
          request.body,
        );
        return reply.code(created ? 201 : 200).send({ endUser });
      },
    );

    app.get(
      END_USER,
      {
        schema: {
          ...common,
          summary: 'An end user by the app’s id, with how many memories are held of them',
          params: EndUserParams,
          response: { 200: EndUserDetailResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        endUser: await service.get(request.caller, request.params.externalId),
      }),
    );

    app.get(
      END_USERS,
      {
        schema: {
          ...common,
          summary: 'The organization’s end users, newest first, a page at a time',
          description: rulesNoSchemaStates(CURSOR_RULE_NO_SCHEMA_STATES),
          params: OrgIdParams,
          querystring: EndUsersQuery,
          response: { 200: EndUsersResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => service.list(request.caller, request.query),
    );

    app.delete(
      END_USER,
      {
        schema: {
          ...common,
          summary:
            'Erase an end user: their memories and memory proposals, their membership, keys and project grants; the audit log keeps that it happened. Also {"ok": true} when already erased or never known',
          params: EndUserParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.erase(request.caller, request.params.externalId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, END_USERS, ['GET']);
  registerMethodNotAllowed(parent, END_USER, ['GET', 'PUT', 'DELETE']);
}
