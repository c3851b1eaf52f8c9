import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuditLog, AuditPage, AuditQuery } from '../audit/index.ts';
import { requireScope } from '../credentials/index.ts';
import {
  OrganizationHeader,
  PLATFORM_ERROR_RESPONSES,
  rulesNoSchemaStates,
} from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { CURSOR_RULE_NO_SCHEMA_STATES } from '../platform/paging.ts';
import { adminSecurity } from './orgs.schemas.ts';
import { requireManager } from './roles.ts';

export interface AuditRoutesDeps {
  readonly auditLog: AuditLog;
  /** The member of the organization in `X-Organization-Id`; sets `request.caller`. */
  readonly member: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const URL = '/api/v1/audit';

/** `GET /api/v1/audit`: the organization's audit log for its owners and admins, a page at a time. */
export function registerAuditRoutes(parent: FastifyInstance, deps: AuditRoutesDeps): void {
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', deps.member);
    app.addHook('onRequest', requireScope('admin'));

    app.get(
      URL,
      {
        schema: {
          tags: ['audit'],
          security: adminSecurity,
          summary:
            'Page through the audit log, newest first: management changes and acts done for other members (owners and admins)',
          description: rulesNoSchemaStates(CURSOR_RULE_NO_SCHEMA_STATES),
          headers: OrganizationHeader,
          querystring: AuditQuery,
          response: { 200: AuditPage, ...PLATFORM_ERROR_RESPONSES },
        },
      },
      async (request): Promise<AuditPage> => {
        requireManager(request.caller, 'read the audit log');
        return deps.auditLog.page(request.caller.orgId, request.query);
      },
    );
  });
  registerMethodNotAllowed(parent, URL, ['GET']);
}
