import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { adminSecurity, OkResponse, OrgIdParams, orgScopedHooks } from '../tenancy/index.ts';
import {
  InvitationBody,
  InvitationCreated,
  InvitationParams,
  InvitationsResponse,
} from './invitations.schemas.ts';
import type { InvitationsService } from './invitations.service.ts';

export interface InvitationsRoutesDeps {
  readonly service: InvitationsService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const INVITATIONS = '/api/v1/orgs/:orgId/invitations';
const INVITATION = `${INVITATIONS}/:invitationId`;

/** Invitations to join an organization, for its owners and admins (invitations.service.ts). */
export function registerInvitationsRoutes(
  parent: FastifyInstance,
  deps: InvitationsRoutesDeps,
): void {
  const { service } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate);
    const common = { tags: ['organizations'], security: adminSecurity };

    app.post(
      INVITATIONS,
      {
        schema: {
          ...common,
          summary:
            'Invite someone by email, with a role (owners and admins; only owners invite owners): the link is shown once and emailed when SMTP is configured; 409 for a member. Inviting an address again replaces its open invitation',
          params: OrgIdParams,
          body: InvitationBody,
          response: { 201: InvitationCreated, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.create(request.caller, request.body)),
    );

    app.get(
      INVITATIONS,
      {
        schema: {
          ...common,
          summary: 'The pending invitations, newest first, never their links (owners and admins)',
          params: OrgIdParams,
          response: { 200: InvitationsResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => ({ invitations: await service.list(request.caller) }),
    );

    app.delete(
      INVITATION,
      {
        schema: {
          ...common,
          summary:
            'Revoke an invitation: its link stops working (owners and admins); done again: {"ok": true}',
          params: InvitationParams,
          response: { 200: OkResponse, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request) => {
        await service.revoke(request.caller, request.params.invitationId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, INVITATIONS, ['GET', 'POST']);
  registerMethodNotAllowed(parent, INVITATION, ['DELETE']);
}
