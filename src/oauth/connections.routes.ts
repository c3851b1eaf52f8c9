import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from '../credentials/index.ts';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import {
  ConnectionIdParams,
  ConnectionListResponse,
  RevokedConnectionResponse,
} from './connections.schemas.ts';
import type { ConnectionsService } from './connections.service.ts';

export interface ConnectionRoutesDeps {
  /** An active account, whatever its organizations; sets `request.account`. */
  readonly account: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  readonly connections: ConnectionsService;
}

const BASE = '/api/v1/me/connections';

const errors = PLATFORM_ERROR_RESPONSES;

/**
 * The person's connected MCP clients: list, and revoke. They belong to the account, not to an
 * organization (no `X-Organization-Id`, as `GET /api/v1/me`); a connection is a credential of
 * the account, as an API key is one of the chat interface, so both routes need the `keys`
 * scope. A token for `/mcp` cannot reach them: its audience is not the API's.
 */
export function registerConnectionRoutes(parent: FastifyInstance, deps: ConnectionRoutesDeps) {
  const { connections } = deps;
  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', deps.account);
    app.addHook('onRequest', requireScope('keys'));
    const common = { tags: ['connections'], security: [{ platformCredential: ['keys'] }] };

    app.get(
      BASE,
      {
        schema: {
          ...common,
          summary: 'The MCP clients you connected, and the organization each acts in',
          response: { 200: ConnectionListResponse, ...errors },
        },
      },
      async (request) => ({ connections: await connections.list(request.account.userId) }),
    );

    app.delete(
      `${BASE}/:id`,
      {
        schema: {
          ...common,
          summary:
            'Revoke a connection: /mcp refuses its tokens from the next request, and it can no longer refresh them',
          params: ConnectionIdParams,
          response: { 200: RevokedConnectionResponse, ...errors },
        },
      },
      async (request) => {
        await connections.revoke(request.account.userId, request.params.id);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, BASE, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['DELETE']);
}
