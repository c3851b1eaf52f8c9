import type { Kysely, Selectable } from 'kysely';
import type { InvitationsTable, Tables } from '../db/tables.ts';

export type InvitationRow = Selectable<InvitationsTable>;

export async function insertInvitation(db: Kysely<Tables>, row: InvitationRow): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

/** The organization's invitations still open at `now`, newest first. */
export async function listPendingInvitations(
  db: Kysely<Tables>,
  orgId: string,
  now: number,
): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findInvitation(
  db: Kysely<Tables>,
  orgId: string,
  id: string,
): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The invitation a link's secret opens, with its organization's name and its inviter's name
 * and email; `lock` takes its row (PostgreSQL), so that two acceptances run one after the other.
 */
export async function findInvitationBySecret(
  db: Kysely<Tables>,
  secretHash: string,
  options: { lock?: boolean } = {},
) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('organizations as o', 'o.id', 'i.org_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .selectAll('i')
    .select(['o.name as org_name', 'u.name as inviter_name', 'u.email as inviter_email'])
    .where('i.secret_hash', '=', secretHash)
    .$if(options.lock === true, (q) => q.forUpdate('i'))
    .executeTakeFirst();
}

export type InvitationWithNames = NonNullable<Awaited<ReturnType<typeof findInvitationBySecret>>>;

/** Revokes the open invitations of `email` to the organization; returns how many. */
export async function revokeOpenInvitations(
  db: Kysely<Tables>,
  orgId: string,
  email: string,
  at: number,
): Promise<number> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('org_id', '=', orgId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Revokes one invitation unless it was accepted or revoked already; true when it did. */
export async function revokeInvitation(
  db: Kysely<Tables>,
  id: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markAccepted(
  db: Kysely<Tables>,
  id: string,
  userId: string,
  at: number,
): Promise<void> {
  await db
    .updateTable('invitations')
    .set({ accepted_at: at, accepted_by: userId })
    .where('id', '=', id)
    .execute();
}
