import type { Kysely } from 'kysely';
import type { Tables, UserKind, UsersTable } from '../db/tables.ts';
import { normalizeEmail } from './email-address.ts';

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
      email: normalizeEmail(user.email),
      name: user.name ?? null,
      password_hash: user.passwordHash ?? null,
      status: 'active',
      created_at: Date.now(),
    })
    .execute();
}

/**
 * An identity that never signs in: an end user, or an app's service identity. No email, no
 * password; active.
 */
export async function insertIdentity(
  db: Kysely<Tables>,
  identity: {
    readonly id: string;
    readonly kind: Exclude<UserKind, 'person'>;
    readonly name: string | null;
    readonly at: number;
  },
): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: identity.id,
      kind: identity.kind,
      email: null,
      name: identity.name,
      password_hash: null,
      status: 'active',
      created_at: identity.at,
    })
    .execute();
}

/** Deletes a user row nothing refers to (an identity made in vain in its own transaction). */
export async function deleteUnreferencedUser(db: Kysely<Tables>, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** Sets a user's name (null: none). */
export async function updateUserName(
  db: Kysely<Tables>,
  id: string,
  name: string | null,
): Promise<void> {
  await db.updateTable('users').set({ name }).where('id', '=', id).execute();
}

/**
 * Takes a user's row for update (PostgreSQL; SQLite's writes are serial anyway). An erasure
 * does so first: a memory being written for the user holds the lock its foreign key's check
 * takes on the row (FOR KEY SHARE), which this one waits for, so the memory is committed before
 * the erasure reads what to delete; one written later waits for the erasure, and then finds no
 * row to refer to (the row is deleted last): refused.
 */
export async function lockUserRow(db: Kysely<Tables>, id: string): Promise<void> {
  await db.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute();
}

/** Deletes an erased identity's row, once nothing refers to it any more. */
export async function deleteErasedUser(db: Kysely<Tables>, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** Returns false when there is no such user (an erased one is none). */
export async function updateUserStatus(
  db: Kysely<Tables>,
  id: string,
  status: Exclude<AccountStatus, 'erased'>,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ status })
    .where('id', '=', id)
    .where('status', '!=', 'erased')
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
    .select(['id', 'kind', 'email', 'name', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
}
