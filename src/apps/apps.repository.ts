import type { Kysely } from 'kysely';
import type { MemberRole, Tables } from '../db/tables.ts';

/** An app as stored: its OAuth client, and its identity's role in the organization. */
export interface AppRow {
  readonly id: string;
  readonly name: string;
  readonly service_user_id: string;
  readonly role: MemberRole;
  readonly rate_limit_per_minute: number | null;
  readonly created_at: number;
}

const apps = (db: Kysely<Tables>, orgId: string) =>
  db
    .selectFrom('oauth_clients as c')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'c.service_user_id').onRef('m.org_id', '=', 'c.org_id'),
    )
    .select([
      'c.id',
      'c.name',
      'c.service_user_id',
      'm.role',
      'c.rate_limit_per_minute',
      'c.created_at',
    ])
    .where('c.org_id', '=', orgId)
    // The join on the membership holds a service user.
    .$narrowType<{ service_user_id: string }>();

export async function listApps(db: Kysely<Tables>, orgId: string): Promise<AppRow[]> {
  return apps(db, orgId).orderBy('c.created_at').orderBy('c.id').execute();
}

export async function findApp(
  db: Kysely<Tables>,
  orgId: string,
  id: string,
): Promise<AppRow | undefined> {
  return apps(db, orgId).where('c.id', '=', id).executeTakeFirst();
}

export async function updateAppClient(
  db: Kysely<Tables>,
  id: string,
  changes: {
    readonly name?: string | undefined;
    readonly rateLimitPerMinute?: number | null | undefined;
    readonly secretHash?: string | undefined;
  },
): Promise<void> {
  const set = {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.rateLimitPerMinute === undefined
      ? {}
      : { rate_limit_per_minute: changes.rateLimitPerMinute }),
    ...(changes.secretHash === undefined ? {} : { secret_hash: changes.secretHash }),
  };
  if (Object.keys(set).length > 0) {
    await db.updateTable('oauth_clients').set(set).where('id', '=', id).execute();
  }
}
