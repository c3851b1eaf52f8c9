import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AccountLinkPurpose, AccountLinksTable, Tables } from '../db/tables.ts';

export type AccountLinkRow = Selectable<AccountLinksTable>;

export async function insertAccountLink(
  db: Kysely<Tables>,
  link: {
    readonly purpose: AccountLinkPurpose;
    readonly secretHash: string;
    readonly userId: string | null;
    readonly email: string | null;
    readonly details: Readonly<Record<string, unknown>> | null;
    readonly at: number;
    readonly ttlMs: number;
  },
): Promise<void> {
  await db
    .insertInto('account_links')
    .values({
      id: randomUUID(),
      purpose: link.purpose,
      secret_hash: link.secretHash,
      user_id: link.userId,
      email: link.email,
      details: link.details === null ? null : JSON.stringify(link.details),
      created_at: link.at,
      expires_at: link.at + link.ttlMs,
      used_at: null,
    })
    .execute();
}

/** The link of `purpose` whose secret hashes to `secretHash`, used or not. */
export async function findAccountLink(
  db: Kysely<Tables>,
  purpose: AccountLinkPurpose,
  secretHash: string,
): Promise<AccountLinkRow | undefined> {
  return db
    .selectFrom('account_links')
    .selectAll()
    .where('purpose', '=', purpose)
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
}

/**
 * Uses the link: marks it used if it is unused and unexpired at `now`, in one statement (two
 * requests cannot both use it), and returns it; undefined when it could not be used.
 */
export async function takeAccountLink(
  db: Kysely<Tables>,
  purpose: AccountLinkPurpose,
  secretHash: string,
  now: number,
): Promise<AccountLinkRow | undefined> {
  return db
    .updateTable('account_links')
    .set({ used_at: now })
    .where('purpose', '=', purpose)
    .where('secret_hash', '=', secretHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Marks the account's unused links of `purpose` used: a newer one, or a new password, ends them. */
export async function retireAccountLinks(
  db: Kysely<Tables>,
  userId: string,
  purpose: AccountLinkPurpose,
  now: number,
): Promise<void> {
  await db
    .updateTable('account_links')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Deletes the links that expired before `now`: nothing can use them. Returns how many. */
export async function purgeExpiredAccountLinks(db: Kysely<Tables>, now: number): Promise<number> {
  const result = await db
    .deleteFrom('account_links')
    .where('expires_at', '<', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The state a link is in at `now`, for the page that opens it. */
export function linkState(row: AccountLinkRow | undefined, now: number) {
  if (!row) return 'unknown' as const;
  if (row.used_at !== null) return 'used' as const;
  if (row.expires_at <= now) return 'expired' as const;
  return 'open' as const;
}
