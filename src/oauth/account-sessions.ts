import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

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
