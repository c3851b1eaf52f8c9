import type { Kysely } from 'kysely';
import type { Tables, UsersTable } from '../db/tables.ts';

export type AccountStatus = UsersTable['status'];

export interface NewUser {
  readonly id: string;
  readonly email: string;
  readonly name?: string | undefined;
  readonly passwordHash?: string | undefined;
}

export async function insertUser(db: Kysely<Tables>, user: NewUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: user.id,
      email: user.email,
      name: user.name ?? null,
      password_hash: user.passwordHash ?? null,
      status: 'active',
      created_at: Date.now(),
    })
    .execute();
}

/** Returns false when there is no such user. */
export async function updateUserStatus(
  db: Kysely<Tables>,
  id: string,
  status: AccountStatus,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ status })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function userExists(db: Kysely<Tables>, id: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
