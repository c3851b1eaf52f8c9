import type { Kysely } from 'kysely';
import type { Tables, UsersTable } from '../db/tables.ts';

export type AccountStatus = UsersTable['status'];

export interface NewUser {
  readonly id: string;
  readonly email: string;
  readonly name?: string | undefined;
  readonly passwordHash?: string | undefined;
}

/**
 * Emails are stored lower-cased, so the unique constraint treats `Ada@Acme.test` and
 * `ada@acme.test` as one address.
 */
export const normalizeEmail = (email: string) => email.toLowerCase();

export async function insertUser(db: Kysely<Tables>, user: NewUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: user.id,
      email: normalizeEmail(user.email),
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

/** Replaces the user's password hash; returns false when there is no such user. */
export async function updateUserPasswordHash(
  db: Kysely<Tables>,
  id: string,
  passwordHash: string,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: passwordHash })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function userExists(db: Kysely<Tables>, id: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function findUserStatus(
  db: Kysely<Tables>,
  id: string,
): Promise<AccountStatus | undefined> {
  const row = await db.selectFrom('users').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

/** The id of the user with this email, compared without regard to case. */
export async function findUserIdByEmail(
  db: Kysely<Tables>,
  email: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  return row?.id;
}

export async function findUser(db: Kysely<Tables>, id: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
}
