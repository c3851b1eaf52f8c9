import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { retireAccountLinks } from './account-links.repository.ts';
import { updateUserPasswordHash } from './users.repository.ts';

/**
 * Ends everything the authorization server holds for an account: its sessions (every browser
 * signed in must sign in again), grants, refresh tokens, codes not yet exchanged, and the
 * connections of its MCP clients. Access tokens are JWTs that live out their lifetime (15
 * minutes by default) unless the account itself stops being active. Returns how many records.
 */
export async function endAccountSessions(trx: Kysely<Tables>, userId: string): Promise<number> {
  const records = await trx
    .deleteFrom('oauth_records')
    .where('account_id', '=', userId)
    .executeTakeFirst();
  await trx.deleteFrom('oauth_connections').where('user_id', '=', userId).execute();
  return Number(records.numDeletedRows);
}

/**
 * Gives an account a new password (its hash): every session and refresh token of the account
 * ends with the old one, and so do its password reset links not yet used. The one way a
 * password changes (a reset, the operator's `mnemo admin user set --password-stdin`). False
 * when there is no such user.
 */
export async function replacePassword(
  trx: Kysely<Tables>,
  userId: string,
  passwordHash: string,
  now = Date.now(),
): Promise<boolean> {
  if (!(await updateUserPasswordHash(trx, userId, passwordHash))) return false;
  await endAccountSessions(trx, userId);
  await retireAccountLinks(trx, userId, 'password-reset', now);
  return true;
}
