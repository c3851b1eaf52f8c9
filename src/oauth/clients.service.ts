import type { Database } from '../db/database.ts';
import type { AccountsService } from '../tenancy/index.ts';
import type { ClientGrant } from './client-grants.ts';
import { createClientId, createClientSecret, hashClientSecret } from './client-secrets.ts';
import { noServiceUser } from './clients.errors.ts';
import { type ClientType, insertClient } from './clients.repository.ts';

export interface NewOperatorClient {
  readonly name: string;
  readonly type: ClientType;
  /** Checked by the caller (client-metadata.ts, redirectUrisProblem). */
  readonly redirectUris: readonly string[];
  readonly grants: readonly ClientGrant[];
  /** The user a client_credentials client acts as; null for any other. */
  readonly serviceUserId: string | null;
}

/**
 * The OAuth clients an operator registers (`mnemo admin client create`); an organization's
 * apps register theirs through src/apps/. A confidential client's secret is returned once and
 * kept only as a hash.
 */
export function createClientsService(deps: {
  readonly database: Database;
  readonly accounts: Pick<AccountsService, 'exists'>;
}) {
  const { database, accounts } = deps;
  return {
    async register(client: NewOperatorClient): Promise<{ id: string; secret?: string }> {
      const id = createClientId();
      const secret = client.type === 'confidential' ? createClientSecret() : undefined;
      if (client.serviceUserId !== null && !(await accounts.exists(client.serviceUserId))) {
        throw noServiceUser(client.serviceUserId);
      }
      await database.write((trx) =>
        insertClient(trx, {
          id,
          ...client,
          secretHash: secret === undefined ? null : hashClientSecret(secret),
        }),
      );
      return secret === undefined ? { id } : { id, secret };
    },
  };
}
