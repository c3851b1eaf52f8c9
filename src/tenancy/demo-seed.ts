import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { insertOrganization, upsertMembership } from './orgs.repository.ts';
import { hashPassword } from './passwords.ts';
import { insertUser } from './users.repository.ts';

export const DEMO_EMAIL = 'demo@mnemo.local';

export interface DemoAccount {
  readonly userId: string;
  readonly orgId: string;
  /**
   * The demo user's password for the sign-in pages: made when the account is, and returned
   * only then, since only its hash is kept.
   */
  readonly password?: string;
}

/**
 * On an empty store, creates the demo organization and its owner; on later starts, finds them
 * again. Returns undefined when the store has organizations but no demo user.
 */
export async function ensureDemoAccount(db: Kysely<Tables>): Promise<DemoAccount | undefined> {
  const existing = await db
    .selectFrom('users as u')
    .innerJoin('memberships as m', 'm.user_id', 'u.id')
    .select(['u.id as userId', 'm.org_id as orgId'])
    .where('u.email', '=', DEMO_EMAIL)
    .orderBy('m.created_at')
    .executeTakeFirst();
  if (existing) return existing;
  const anyOrg = await db.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
  if (anyOrg) return undefined;
  // Random, not a well-known default: a demo left running on a reachable address is not open.
  const password = randomBytes(12).toString('base64url');
  const account = { userId: randomUUID(), orgId: randomUUID(), password };
  const passwordHash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await insertOrganization(trx, { id: account.orgId, name: 'Demo' });
    await insertUser(trx, {
      id: account.userId,
      email: DEMO_EMAIL,
      name: 'Demo User',
      passwordHash,
    });
    await upsertMembership(trx, account.orgId, account.userId, 'owner');
  });
  return account;
}
