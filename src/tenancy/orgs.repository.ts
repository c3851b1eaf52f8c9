import { type Expression, type Kysely, sql } from 'kysely';
import { byOrdinal, createBatchedRead, createReadTogether, keyRows } from '../db/batched-reads.ts';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import type { MemberRole, OrganizationsTable, Tables, UsersTable } from '../db/tables.ts';
import { byName } from './names.ts';

export type UserOverridePolicy = OrganizationsTable['user_override'];

export interface NewOrganization {
  readonly id: string;
  readonly name: string;
  readonly memoryEnabled?: boolean | undefined;
  readonly userOverride?: UserOverridePolicy | undefined;
}

export async function insertOrganization(db: Kysely<Tables>, org: NewOrganization): Promise<void> {
  await db
    .insertInto('organizations')
    .values({
      id: org.id,
      name: org.name,
      memory_enabled: org.memoryEnabled === undefined ? null : Number(org.memoryEnabled),
      user_override: org.userOverride ?? 'members',
      created_at: Date.now(),
    })
    .execute();
}

/** Returns false when there is no such organization. */
export async function updateOrganization(
  db: Kysely<Tables>,
  id: string,
  changes: {
    name?: string | undefined;
    memoryEnabled?: boolean | undefined;
    userOverride?: UserOverridePolicy | undefined;
  },
): Promise<boolean> {
  const set: Partial<Pick<OrganizationsTable, 'name' | 'memory_enabled' | 'user_override'>> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.memoryEnabled !== undefined) set.memory_enabled = Number(changes.memoryEnabled);
  if (changes.userOverride !== undefined) set.user_override = changes.userOverride;
  if (Object.keys(set).length === 0) return organizationExists(db, id);
  const result = await db
    .updateTable('organizations')
    .set(set)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function organizationExists(db: Kysely<Tables>, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The organization; `lock` takes its row for update (PostgreSQL), so that the membership changes
 * of one organization run one after the other (two demotions cannot both see another owner).
 */
export async function findOrganization(
  db: Kysely<Tables>,
  id: string,
  options: { lock?: boolean } = {},
) {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where('id', '=', id)
    .$if(options.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
}

/**
 * The organizations a user belongs to, with the user's role in each, by name (`/api/v1/me`,
 * userinfo, the access token's `org_ids`). Sorted here rather than in SQL, whose collations
 * differ between the engines.
 */
export async function listUserOrganizations(db: Kysely<Tables>, userId: string) {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['o.id', 'o.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .execute();
  return rows.sort(byName);
}

function membersQuery(db: Kysely<Tables>, orgId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.kind', 'u.email', 'u.name', 'u.status', 'm.role', 'm.created_at'])
    .where('m.org_id', '=', orgId);
}

/**
 * The people of an organization with their accounts, in the order they joined: its end users
 * and apps are members too, listed apart (src/end-users/, src/apps/).
 */
export async function listMembers(db: Kysely<Tables>, orgId: string) {
  return membersQuery(db, orgId)
    .where('u.kind', '=', 'person')
    .orderBy('m.created_at')
    .orderBy('u.id')
    .execute();
}

export async function findMember(db: Kysely<Tables>, orgId: string, userId: string) {
  return membersQuery(db, orgId).where('u.id', '=', userId).executeTakeFirst();
}

export type MemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;

export async function countOwners(db: Kysely<Tables>, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('owners'))
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

/** Adds a member or changes the role of an existing one. */
export async function upsertMembership(
  db: Kysely<Tables>,
  orgId: string,
  userId: string,
  role: MemberRole,
): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ org_id: orgId, user_id: userId, role, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role }))
    .execute();
}

export async function deleteMembership(
  db: Kysely<Tables>,
  orgId: string,
  userId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('memberships')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** `lock` takes the membership row for update (PostgreSQL; SQLite's writes are serial anyway). */
export async function findMemberRole(
  db: Kysely<Tables>,
  orgId: string,
  userId: string,
  options: { lock?: boolean } = {},
): Promise<MemberRole | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .$if(options.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
  return row?.role;
}

/** Reads a member's role from the reader, with one query compiled once (memory requests). */
export function createMemberRoleReader(database: Pick<Database, 'db' | 'reader'>) {
  const { db, reader } = database;
  const query = prepareQuery((p: { orgId: string; userId: string }) =>
    db
      .selectFrom('memberships')
      .select('role')
      .where('org_id', '=', p.orgId)
      .where('user_id', '=', p.userId),
  );
  return async (orgId: string, userId: string): Promise<MemberRole | undefined> =>
    (await query.first(reader, { orgId, userId }))?.role;
}

/** Everything the platform checks about a caller in one organization, in one query. */
export interface CallerContext {
  readonly status: UsersTable['status'];
  readonly role: MemberRole | null;
  readonly memoryEnabled: boolean | null;
  readonly userOverride: UserOverridePolicy;
}

/**
 * The caller's context in one organization as a query of its own, with the context's columns
 * (`caller_status`, `caller_role`, `caller_memory_enabled`, `caller_user_override`): a read
 * that needs the caller checked may join its own rows to it (`left join … on true`) and cost
 * one statement instead of two. One row while the user exists, none otherwise.
 */
export function callerContextQuery(
  db: Kysely<Tables>,
  p: { readonly userId: string | Expression<string>; readonly orgId: string | Expression<string> },
) {
  return db
    .selectFrom('users as u')
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'u.id').on('m.org_id', '=', p.orgId),
    )
    .leftJoin('organizations as o', 'o.id', 'm.org_id')
    .select([
      'u.status as caller_status',
      'm.role as caller_role',
      'o.memory_enabled as caller_memory_enabled',
      'o.user_override as caller_user_override',
    ])
    .where('u.id', '=', p.userId);
}

/** The row of `callerContextQuery` (and of the reads joined to it) as a caller's context. */
export function toCallerContext(row: {
  readonly caller_status: CallerContext['status'];
  readonly caller_role: MemberRole | null;
  readonly caller_memory_enabled: number | null;
  readonly caller_user_override: UserOverridePolicy | null;
}): CallerContext {
  return {
    status: row.caller_status,
    role: row.caller_role,
    memoryEnabled: row.caller_memory_enabled === null ? null : row.caller_memory_enabled === 1,
    userOverride: row.caller_user_override ?? 'members',
  };
}

/**
 * Reads a caller's context in one organization with one query, compiled once: every request
 * of the platform runs it, and it must read the store each time (a change made by the CLI
 * applies to the next request). The reads of concurrent requests go together
 * (db/batched-reads.ts): in one statement on PostgreSQL, in one read transaction on SQLite.
 */
export function createCallerContextReader(
  database: Pick<Database, 'db' | 'reader' | 'dialect' | 'readTogether'>,
) {
  const { db, reader } = database;
  type Key = { readonly userId: string; readonly orgId: string };
  if (database.dialect === 'sqlite') {
    const one = prepareQuery((p: Key) => callerContextQuery(db, p));
    const read = createReadTogether(database, async (key: Key) => {
      const row = await one.first(reader, key);
      return row && toCallerContext(row);
    });
    return (userId: string, orgId: string) => read({ userId, orgId });
  }
  const many = prepareQuery((p: { userIds: string[]; orgIds: string[] }) =>
    db
      .selectFrom(keyRows(['user_id', 'org_id'], [p.userIds, p.orgIds]))
      .innerJoinLateral(
        callerContextQuery(db, { userId: sql.ref('q.user_id'), orgId: sql.ref('q.org_id') }).as(
          'k',
        ),
        (join) => join.onTrue(),
      )
      .selectAll('k')
      .select('q.ord'),
  );
  const read = createBatchedRead(async (batch: readonly Key[]) => {
    const rows = await many.rows(reader, {
      userIds: batch.map((key) => key.userId),
      orgIds: batch.map((key) => key.orgId),
    });
    return byOrdinal(rows, batch.length).map((row) => row && toCallerContext(row));
  });
  return (userId: string, orgId: string) => read({ userId, orgId });
}
