import type { Database } from '../db/database.ts';
import { parseUuid } from '../platform/uuid.ts';
import { connectionNotFound } from './connections.errors.ts';
import {
  deleteConnection,
  listConnections,
  type NewConnection,
  saveConnection,
} from './connections.repository.ts';
import type { Connection } from './connections.schemas.ts';
import type { ProviderHolder } from './provider-holder.ts';

export interface ConnectionsServiceDeps {
  readonly database: Database;
  /** The authorization server, whose grant a revocation ends. */
  readonly providers: ProviderHolder;
}

/**
 * A person's connections of MCP clients: the organization each acts in, chosen at consent
 * (interactions.routes.ts), listed and revoked by the person (connections.routes.ts), read by
 * /mcp on every request (mcp-authenticate.ts).
 */
export function createConnectionsService(deps: ConnectionsServiceDeps) {
  const { database } = deps;
  return {
    /** Records the organization chosen for a grant (a grant consented to again takes it). */
    async save(connection: NewConnection): Promise<void> {
      await database.write((trx) => saveConnection(trx, connection));
    },

    /** The person's connections whose grant is in force, newest first. */
    async list(userId: string): Promise<Connection[]> {
      const connections = await listConnections(database.db, userId);
      return connections.map((c) => ({ ...c, createdAt: new Date(c.createdAt).toISOString() }));
    },

    /**
     * Revokes the person's connection `rawId` (404 when they have none such). The row is what
     * /mcp checks: gone, its tokens are refused. Then the grant, so that nothing of it
     * refreshes; our adapter revokes every token of a grant whichever model is asked
     * (oidc-adapter.ts).
     */
    async revoke(userId: string, rawId: string): Promise<void> {
      const id = parseUuid(rawId);
      const grantId = id && (await database.write((trx) => deleteConnection(trx, userId, id)));
      if (!grantId) throw connectionNotFound();
      const provider = await deps.providers.current();
      await (await provider.Grant.find(grantId))?.destroy();
      await provider.RefreshToken.revokeByGrantId(grantId);
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
