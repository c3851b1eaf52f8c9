import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from '../auth/scopes.ts';
import type { Database } from '../db/database.ts';
import { PLATFORM_ERROR_RESPONSES } from '../platform/api-schemas.ts';
import { notFound } from '../platform/errors.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { parseUuid } from '../platform/uuid.ts';
import { deleteConnection, listConnections } from './connections.repository.ts';
import {
  ConnectionIdParams,
  ConnectionListResponse,
  RevokedConnectionResponse,
} from './connections.schemas.ts';
import type { ProviderHolder } from './provider-holder.ts';

export interface ConnectionRoutesDeps {
  /** An active account, whatever its organizations; sets `request.account`. */
  readonly account: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  readonly database: Database;
  /** The authorization server, whose grant a revocation ends. */
  readonly providers: ProviderHolder;
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
  const { database } = deps;
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
      async (request) => {
        const connections = await listConnections(database.db, request.account.userId);
        return {
          connections: connections.map((c) => ({
            ...c,
            createdAt: new Date(c.createdAt).toISOString(),
          })),
        };
      },
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
        const id = parseUuid(request.params.id);
        const grantId =
          id && (await database.write((trx) => deleteConnection(trx, request.account.userId, id)));
        if (!grantId) throw notFound('no such connection');
        // The row is what /mcp checks: gone, its tokens are refused. Then the grant, so that
        // nothing of it refreshes. Our adapter revokes every token of a grant whichever model
        // is asked (oidc-adapter.ts).
        const provider = await deps.providers.current();
        await (await provider.Grant.find(grantId))?.destroy();
        await provider.RefreshToken.revokeByGrantId(grantId);
        return { ok: true as const };
      },
    );
  });
  registerMethodNotAllowed(parent, BASE, ['GET']);
  registerMethodNotAllowed(parent, `${BASE}/:id`, ['DELETE']);
}
