import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { KeysetPosition } from '../platform/paging.ts';

/** An end user as stored: the identity's row joined to its external id. */
export interface EndUserRow {
  readonly user_id: string;
  readonly external_id: string;
  readonly name: string | null;
  readonly created_at: number;
}

/** Lower-cased without a locale, for prefix search: the same on both engines. */
export const searchKey = (text: string) => text.toLowerCase();

const endUsers = (db: Kysely<Tables>, orgId: string) =>
  db
    .selectFrom('end_users as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.user_id', 'e.external_id', 'u.name', 'e.created_at'])
    .where('e.org_id', '=', orgId);

export async function findEndUser(
  db: Kysely<Tables>,
  orgId: string,
  externalId: string,
): Promise<EndUserRow | undefined> {
  return endUsers(db, orgId).where('e.external_id', '=', externalId).executeTakeFirst();
}

export async function findEndUserById(
  db: Kysely<Tables>,
  orgId: string,
  userId: string,
): Promise<EndUserRow | undefined> {
  return endUsers(db, orgId).where('e.user_id', '=', userId).executeTakeFirst();
}

/**
 * Claims `externalId` in the organization for the identity `userId`. True when this call
 * claimed it; false when the id was taken, by a transaction that committed first: on
 * PostgreSQL a concurrent claim waits for that one to end and then does nothing, so any number
 * of them make one end user.
 */
export async function claimExternalId(
  db: Kysely<Tables>,
  row: { orgId: string; userId: string; externalId: string; name: string | null; at: number },
): Promise<boolean> {
  const claimed = await db
    .insertInto('end_users')
    .values({
      user_id: row.userId,
      org_id: row.orgId,
      external_id: row.externalId,
      external_key: searchKey(row.externalId),
      name_key: row.name === null ? null : searchKey(row.name),
      created_at: row.at,
    })
    .onConflict((oc) => oc.columns(['org_id', 'external_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function updateEndUserName(
  db: Kysely<Tables>,
  userId: string,
  name: string | null,
): Promise<void> {
  await db
    .updateTable('end_users')
    .set({ name_key: name === null ? null : searchKey(name) })
    .where('user_id', '=', userId)
    .execute();
}

/**
 * A page of the organization's end users, newest first, after `position`; `prefix` (lower-cased)
 * keeps those whose external id or name starts with it.
 */
export async function pageEndUsers(
  db: Kysely<Tables>,
  orgId: string,
  options: { limit: number; position?: KeysetPosition | undefined; prefix?: string | undefined },
): Promise<EndUserRow[]> {
  const { position, prefix } = options;
  return endUsers(db, orgId)
    .$if(prefix !== undefined, (q) => q.where((eb) => startsWith(eb, prefix as string)))
    .$if(position !== undefined, (q) =>
      q.where((eb) => {
        const { at, id } = position as KeysetPosition;
        return eb.or([
          eb('e.created_at', '<', at),
          eb.and([eb('e.created_at', '=', at), eb('e.user_id', '<', id)]),
        ]);
      }),
    )
    .orderBy('e.created_at', 'desc')
    .orderBy('e.user_id', 'desc')
    .limit(options.limit)
    .execute();
}

/** How many end users the organization has (whose id or name starts with `prefix`). */
export async function countEndUsers(
  db: Kysely<Tables>,
  orgId: string,
  prefix: string | undefined,
): Promise<number> {
  const row = await db
    .selectFrom('end_users as e')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('e.org_id', '=', orgId)
    .$if(prefix !== undefined, (q) => q.where((eb) => startsWith(eb, prefix as string)))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The external id's or the name's key starts with `prefix`: compared as a leading substring
 * (both engines count characters alike), so no character of it is a pattern.
 */
function startsWith(
  eb: ExpressionBuilder<Tables & { e: Tables['end_users'] }, 'e'>,
  prefix: string,
) {
  const length = [...prefix].length;
  return eb.or([
    eb(eb.fn('substr', ['e.external_key', eb.lit(1), eb.val(length)]), '=', prefix),
    eb(eb.fn('substr', ['e.name_key', eb.lit(1), eb.val(length)]), '=', prefix),
  ]);
}

/** Active memories held of each end user: in their own store, and contributed to pools. */
export async function countMemoriesOf(db: Kysely<Tables>, userId: string) {
  const row = await db
    .selectFrom('memories as m')
    .innerJoin('scopes as s', 's.id', 'm.scope_id')
    .select((eb) => [
      eb.fn
        .sum<number | string | null>(eb.case().when('s.kind', '=', 'user').then(1).else(0).end())
        .as('own'),
      eb.fn
        .sum<number | string | null>(eb.case().when('s.kind', '=', 'project').then(1).else(0).end())
        .as('contributed'),
    ])
    .where('m.contributor_id', '=', userId)
    .where('m.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { own: Number(row.own ?? 0), contributed: Number(row.contributed ?? 0) };
}

export async function deleteEndUserRow(db: Kysely<Tables>, userId: string): Promise<void> {
  await db.deleteFrom('end_users').where('user_id', '=', userId).execute();
}
