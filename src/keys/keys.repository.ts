import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import type {
  ApiKeysTable,
  MemberRole,
  MemoryMode,
  OrganizationsTable,
  Tables,
  UsersTable,
} from '../db/tables.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;
/** A key as lists show it: everything but the hash. */
export type ApiKeyView = Omit<ApiKeyRow, 'secret_hash'>;

const VIEW = [
  'id',
  'org_id',
  'user_id',
  'project_id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'memory',
  'memory_access',
] as const;

export async function insertApiKey(db: Kysely<Tables>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The organization's keys, or only `userId`'s when given; newest first. */
export async function listApiKeys(
  db: Kysely<Tables>,
  orgId: string,
  userId: string | undefined,
): Promise<ApiKeyView[]> {
  return (
    db
      .selectFrom('api_keys')
      .select(VIEW)
      .where('org_id', '=', orgId)
      .$if(userId !== undefined, (q) => q.where('user_id', '=', userId as string))
      .orderBy('created_at', 'desc')
      // Ids are time-ordered (UUIDv7): keys made in one millisecond keep their order.
      .orderBy('id', 'desc')
      .execute()
  );
}

/** A key of this organization; undefined when unknown or another organization's. */
export async function findApiKey(
  db: Kysely<Tables>,
  orgId: string,
  id: string,
): Promise<ApiKeyView | undefined> {
  return db
    .selectFrom('api_keys')
    .select(VIEW)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Sets `revoked_at` unless already set; false when it was. */
export async function revokeApiKey(db: Kysely<Tables>, id: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes every key of a user (an identity erased); returns how many there were. */
export async function deleteKeysOfUser(db: Kysely<Tables>, userId: string): Promise<number> {
  const result = await db.deleteFrom('api_keys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sets a key's memory settings. */
export async function setKeyMemory(
  db: Kysely<Tables>,
  id: string,
  settings: { memory: MemoryMode; memory_access: MemoryMode },
): Promise<void> {
  await db.updateTable('api_keys').set(settings).where('id', '=', id).execute();
}

/** Moves `last_used_at` forward to `at`, never back (flushes of several processes interleave). */
export async function touchApiKey(db: Kysely<Tables>, id: string, at: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
}

/** What authenticating with a key needs to know, found by the secret's hash. */
export interface ApiKeyCredentialRow {
  readonly id: string;
  readonly org_id: string;
  readonly user_id: string;
  readonly secret_hash: string;
  readonly expires_at: number | null;
  readonly revoked_at: number | null;
  readonly status: UsersTable['status'];
  /** The user's role in the key's organization; null when no longer a member. */
  readonly role: MemberRole | null;
  readonly memory: MemoryMode;
  readonly memory_access: MemoryMode;
  /** The organization's memory switch and override policy, for a call that uses memory. */
  readonly memory_enabled: OrganizationsTable['memory_enabled'];
  readonly user_override: OrganizationsTable['user_override'];
}

/**
 * The key with this hash (a unique index), its user's status and membership, and what a call
 * using memory needs of its organization, in one query
 * compiled once, run on the reader: the chat interface runs it on every call.
 */
export function createApiKeyLookup(database: Pick<Database, 'db' | 'reader'>) {
  const { db, reader } = database;
  const query = prepareQuery((p: { hash: string }) =>
    db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .innerJoin('organizations as o', 'o.id', 'k.org_id')
      .leftJoin('memberships as m', (join) =>
        join.onRef('m.org_id', '=', 'k.org_id').onRef('m.user_id', '=', 'k.user_id'),
      )
      .select([
        'k.id',
        'k.org_id',
        'k.user_id',
        'k.secret_hash',
        'k.expires_at',
        'k.revoked_at',
        'u.status',
        'm.role',
        'k.memory',
        'k.memory_access',
        'o.memory_enabled',
        'o.user_override',
      ])
      .where('k.secret_hash', '=', p.hash),
  );
  return async (hash: string): Promise<ApiKeyCredentialRow | undefined> =>
    query.first(reader, { hash });
}
