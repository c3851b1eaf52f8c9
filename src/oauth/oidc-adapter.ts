import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import type { Database } from '../db/database.ts';
import { purgeExpiredAccountLinks } from '../tenancy/index.ts';
import { hashClientSecret } from './client-secrets.ts';
import { deleteOrphanConnections } from './connections.repository.ts';

/**
 * The models whose records `revokeByGrantId` removes: the tokens a grant issues. oidc-provider's
 * own adapter (lib/adapters/memory_adapter.js, `grantable`) files only these under their grant,
 * whichever model's adapter is asked to revoke. An Interaction also carries a `grantId`, and is
 * left alone, as there.
 */
const GRANTABLE = [
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
];

/**
 * Clients registered by operators are in oauth_clients (`findClient`); those that registered
 * themselves (RFC 7591) are records of this model, their metadata as the provider accepted it.
 */
const CLIENT = 'Client';

export interface OidcAdapterOptions {
  /** The clock, integer milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** The metadata of an operator's client, read by oidc-provider's Client model; undefined when unknown. */
  readonly findClient?: (id: string) => Promise<AdapterPayload | undefined>;
}

/**
 * oidc-provider's `adapter` option: one adapter per model name, every model in `oauth_records`,
 * so that every process of the service shares sessions, grants and codes.
 *
 * @example
 * const provider = new Provider(issuer, {
 *   adapter: createOidcAdapter(database, { findClient: (id) => clientMetadata(database, id) }),
 * });
 */
export function createOidcAdapter(
  database: Database,
  options: OidcAdapterOptions = {},
): AdapterConstructor {
  const now = options.now ?? Date.now;
  const { findClient } = options;

  /** The record, as oidc-provider stored it and with `consumed` when it was; undefined once expired. */
  async function findWhere(
    model: string,
    column: 'id' | 'uid' | 'user_code',
    value: string,
  ): Promise<AdapterPayload | undefined> {
    const at = now();
    const row = await database.db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed_at'])
      .where('model', '=', model)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    // As the memory adapter reports it: `consumed` is the epoch second of the consumption.
    if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
    return payload;
  }

  return class OAuthRecordsAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // A registered client's secret is kept as its hash, like an operator's: the provider's
      // comparison is replaced by one of hashes (provider-clients.ts). The secret was answered
      // once.
      if (this.#model === CLIENT && typeof payload.client_secret === 'string') {
        payload = { ...payload, client_secret: hashClientSecret(payload.client_secret) };
      }
      // Any finite number counts, as in the memory adapter: a ttl of 0 or less (a record saved
      // at or past its `exp`) is expired at once, not kept forever.
      const expiresAt =
        typeof expiresIn === 'number' && Number.isFinite(expiresIn)
          ? now() + Math.ceil(expiresIn * 1000)
          : null;
      const columns = {
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        // Sessions, grants and the tokens of a signed-in person: ended with a new password.
        account_id: typeof payload.accountId === 'string' ? payload.accountId : null,
        expires_at: expiresAt,
        // A record saved again is the record as given: an earlier consumption goes with it.
        consumed_at: null,
      };
      await database.write((trx) =>
        trx
          .insertInto('oauth_records')
          .values({ model: this.#model, id, ...columns })
          .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(columns))
          .execute(),
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.#model === CLIENT) {
        // A URL is a client ID metadata document's, which the provider fetches: no registered
        // client has one.
        if (URL.canParse(id)) return undefined;
        return (await findClient?.(id)) ?? findWhere(CLIENT, 'id', id);
      }
      return findWhere(this.#model, 'id', id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (this.#model === CLIENT) return undefined;
      return findWhere(this.#model, 'uid', uid);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (this.#model === CLIENT) return undefined;
      return findWhere(this.#model, 'user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      if (this.#model === CLIENT) return;
      const at = now();
      await database.write((trx) =>
        trx
          .updateTable('oauth_records')
          .set({ consumed_at: at })
          .where('model', '=', this.#model)
          .where('id', '=', id)
          .execute(),
      );
    }

    async destroy(id: string): Promise<void> {
      if (this.#model === CLIENT) return;
      await database.write((trx) =>
        trx
          .deleteFrom('oauth_records')
          .where('model', '=', this.#model)
          .where('id', '=', id)
          .execute(),
      );
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (this.#model === CLIENT) return;
      await database.write((trx) =>
        trx
          .deleteFrom('oauth_records')
          .where('grant_id', '=', grantId)
          .where('model', 'in', GRANTABLE)
          .execute(),
      );
    }
  };
}

/**
 * Deletes the records that expired before `now` (they are already invisible to the adapter),
 * the connections of grants that are gone, and the sign-up, reset and sign-in links that expired
 * (nothing can use them); returns how many records. oidc-provider never deletes an expired
 * record itself. One transaction: a process stopping meanwhile leaves it done or not begun.
 */
export async function purgeExpiredOAuthRecords(
  database: Database,
  now = Date.now(),
): Promise<number> {
  const result = await database.write(async (trx) => {
    const deleted = await trx
      .deleteFrom('oauth_records')
      .where('expires_at', '<', now)
      .executeTakeFirst();
    await deleteOrphanConnections(trx, now);
    await purgeExpiredAccountLinks(trx, now);
    return deleted;
  });
  return Number(result.numDeletedRows);
}
