import type { Kysely } from 'kysely';
import type { OAuthClientsTable, Tables } from '../db/tables.ts';
import { CLIENT_GRANTS, type ClientGrant } from './client-grants.ts';

export type ClientType = OAuthClientsTable['type'];

/** A client registered by an operator, as stored, its JSON columns decoded. */
export interface OAuthClient {
  readonly id: string;
  readonly name: string;
  readonly type: ClientType;
  /** SHA-256 (base64url) of the secret; set for confidential clients only. */
  readonly secretHash: string | null;
  /** Exact strings, compared as such. */
  readonly redirectUris: readonly string[];
  readonly grants: readonly ClientGrant[];
  /** The user a client_credentials client acts as. */
  readonly serviceUserId: string | null;
  /** The organization of an app (registered by its owners); null: an operator's client. */
  readonly orgId: string | null;
  /** An app's own request rate a minute; null: the default. */
  readonly rateLimitPerMinute: number | null;
  readonly createdAt: number;
}

export type NewClient = Omit<OAuthClient, 'createdAt' | 'orgId' | 'rateLimitPerMinute'> &
  Partial<Pick<OAuthClient, 'orgId' | 'rateLimitPerMinute'>>;

export async function insertClient(
  db: Kysely<Tables>,
  client: NewClient,
  now = Date.now(),
): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({
      id: client.id,
      name: client.name,
      type: client.type,
      secret_hash: client.secretHash,
      redirect_uris: JSON.stringify(client.redirectUris),
      grant_types: JSON.stringify(client.grants),
      service_user_id: client.serviceUserId,
      org_id: client.orgId ?? null,
      rate_limit_per_minute: client.rateLimitPerMinute ?? null,
      created_at: now,
    })
    .execute();
}

/** Deletes the clients that act as this service user; returns how many there were. */
export async function deleteClientsOfServiceUser(
  db: Kysely<Tables>,
  userId: string,
): Promise<number> {
  const result = await db
    .deleteFrom('oauth_clients')
    .where('service_user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findClient(db: Kysely<Tables>, id: string): Promise<OAuthClient | undefined> {
  const row = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    secretHash: row.secret_hash,
    redirectUris: decodeStrings(row.id, 'redirect_uris', row.redirect_uris),
    grants: decodeStrings(row.id, 'grant_types', row.grant_types).map((grant) =>
      isClientGrant(grant)
        ? grant
        : corrupt(row.id, 'grant_types', `holds an unknown grant "${grant}"`),
    ),
    serviceUserId: row.service_user_id,
    orgId: row.org_id,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at,
  };
}

const isClientGrant = (value: string): value is ClientGrant =>
  (CLIENT_GRANTS as readonly string[]).includes(value);

function decodeStrings(id: string, column: string, text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return corrupt(id, column, 'is not JSON');
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    return corrupt(id, column, 'is not an array of strings');
  }
  return value;
}

// Only a hand-edited row gets here: refuse the client rather than guess what was meant.
function corrupt(id: string, column: string, problem: string): never {
  throw new Error(`oauth client ${id}: ${column} ${problem}`);
}
