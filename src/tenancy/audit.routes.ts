import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AUDIT_PAGE,
  type AuditEntry,
  AuditPage,
  AuditQuery,
  decodeAuditCursor,
  encodeAuditCursor,
  pageAudit,
} from '../audit/index.ts';
import { requireScope } from '../credentials/index.ts';
import type { Database } from '../db/database.ts';
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
  readonly database: Database;
  /** The member of the organization in `X-Organization-Id`; sets `request.caller`. */
  readonly member: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const URL = '/api/v1/audit';

function present(row: Awaited<ReturnType<typeof pageAudit>>[number]): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    actorId: row.actor_id,
    targetId: row.target_id,
    action: row.action,
    ...(row.memory_id === null ? {} : { memoryId: row.memory_id }),
    ...(row.details === null ? {} : { details: JSON.parse(row.details) }),
  };
}

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
        const limit = request.query.limit ?? AUDIT_PAGE.default;
        const after =
          request.query.cursor === undefined ? undefined : decodeAuditCursor(request.query.cursor);
        // One more than the page: whether there is a next page, without a count.
        const rows = await pageAudit(deps.database.db, request.caller.orgId, limit + 1, after);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          entries: page.map(present),
          next: rows.length > limit && last ? encodeAuditCursor(last) : null,
        };
      },
    );
  });
  registerMethodNotAllowed(parent, URL, ['GET']);
}
