import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import type { MembersService } from './members.service.ts';
import { orgScopedHooks } from './org-scoped-hooks.ts';
import {
  adminSecurity,
  MemberAddBody,
  MemberParams,
  MemberResponse,
  MemberRoleBody,
  MembersResponse,
  OkResponse,
  OrgIdParams,
} from './orgs.schemas.ts';

export interface MembersRoutesDeps {
  readonly service: MembersService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const MEMBERS = '/api/v1/orgs/:orgId/members';
const MEMBER = `${MEMBERS}/:userId`;

/**
 * An organization's members: any member lists them; owners and admins add, change and remove
 * them; only owners make or touch owners; the last owner stays (409).
 */
export function registerMembersRoutes(parent: FastifyInstance, deps: MembersRoutesDeps): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate);
    const common = { tags: ['organizations'], security: adminSecurity };

    app.get(
      MEMBERS,
      {
        schema: {
          ...common,
          summary: 'List the members with their roles and account status (any member)',
          params: OrgIdParams,
          response: { 200: MembersResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ members: await service.list(request.caller) }),
    );

    app.post(
      MEMBERS,
      {
        schema: {
          ...common,
          summary:
            'Add an existing user by email (owners and admins; only owners add owners); 404 for an unknown email, 409 for a member',
          params: OrgIdParams,
          body: MemberAddBody,
          response: { 201: MemberResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) =>
        reply.code(201).send({ member: await service.add(request.caller, request.body) }),
    );

    app.patch(
      MEMBER,
      {
        schema: {
          ...common,
          summary:
            "Change a member's role (owners and admins; only owners make or change owners; never the last owner: 409)",
          params: MemberParams,
          body: MemberRoleBody,
          response: { 200: MemberResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({
        member: await service.changeRole(request.caller, request.params.userId, request.body.role),
      }),
    );

    app.delete(
      MEMBER,
      {
        schema: {
          ...common,
          summary:
            "Remove a member and the member's project grants in the organization (owners and admins; only owners remove owners; never the last owner: 409)",
          params: MemberParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.remove(request.caller, request.params.userId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, MEMBERS, ['GET', 'POST']);
  registerMethodNotAllowed(parent, MEMBER, ['PATCH', 'DELETE']);
}
