import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { sendStream } from '../platform/raw-replies.ts';
import { adminSecurity, OrgIdParams, orgScopedHooks } from '../tenancy/index.ts';
import { NDJSON } from './memory.routes.ts';
import { OrgExportLine } from './memory.schemas.ts';
import type { MemoryService } from './memory.service.ts';

export interface OrgExportRoutesDeps {
  readonly service: MemoryService;
  /** The member of the organization in the path (404 for an unknown one); sets `request.caller`. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const ORG_EXPORT = '/api/v1/orgs/:orgId/export';

/** An organization's memories, every store of it, for its owners: backups and moves. */
export function registerOrgExportRoutes(parent: FastifyInstance, deps: OrgExportRoutesDeps): void {
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    orgScopedHooks(scoped, deps.authenticate);
    app.get(
      ORG_EXPORT,
      {
        schema: {
          tags: ['organizations'],
          security: adminSecurity,
          summary:
            'Every memory of every store of the organization as JSON lines, read from one snapshot. Owners only',
          params: OrgIdParams,
          response: {
            200: {
              description:
                'One {"store", "memory"} a line (JSON Lines), store by store; an end user’s store names the app’s id of them too. `mnemo import` takes the file back in',
              content: { [NDJSON]: { schema: OrgExportLine } },
            },
            ...PLATFORM_ERROR_RESPONSES,
          },
        },
      },
      async (request, reply) => {
        const lines = await deps.service.exportOrganization(request.caller);
        // A stream is sent as it is, not serialized: the schema above documents each line.
        return sendStream(reply, NDJSON, lines);
      },
    );
  });
  registerMethodNotAllowed(parent, ORG_EXPORT, ['GET']);
}
