import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { findUser, hashPassword, normalizeEmail, verifyPassword } from '../tenancy/index.ts';

export interface Account {
  readonly id: string;
  /** Null for an app's service identity, which acts by client credentials alone. */
  readonly email: string | null;
  readonly name: string | null;
}

/** An active user, or undefined: suspended and banned accounts do not exist for sign-in. */
export async function findActiveAccount(
  db: Kysely<Tables>,
  id: string,
): Promise<Account | undefined> {
  const user = await findUser(db, id);
  return user?.status === 'active'
    ? { id: user.id, email: user.email, name: user.name }
    : undefined;
}

/**
 * An active person: who signs in and sees the sign-in and consent pages (an end user or an app
 * never does).
 */
export async function findActivePerson(
  db: Kysely<Tables>,
  id: string,
): Promise<(Account & { readonly email: string }) | undefined> {
  const account = await findActiveAccount(db, id);
  return account?.email == null ? undefined : { ...account, email: account.email };
}

export type SignInOutcome =
  | { readonly ok: true; readonly userId: string }
  | {
      readonly ok: false;
      readonly reason: 'wrong-credentials' | 'suspended' | 'banned' | 'throttled';
      /** For `throttled`: seconds until another attempt is allowed. */
      readonly retryAfterSeconds?: number;
    };

export interface SignInDeps {
  readonly db: Kysely<Tables>;
  /** Failed sign-ins per account (its email), across every address. */
  readonly perAccount: RateLimiter;
  /** Failed sign-ins per client address, across every account. */
  readonly perAddress: RateLimiter;
}

/**
 * Checks an email and password. Failures count per account and per client address; once either
 * is spent, sign-in is refused without looking at the password, so guessing cannot go faster
 * than the limit. An unknown email costs a hash like a known one, so timing tells nothing.
 * Suspended and banned accounts are refused after the password matched: only the owner of the
 * password learns the account's state.
 */
export function createSignIn(deps: SignInDeps) {
  const { db, perAccount, perAddress } = deps;
  // A hash to compare against when the email is unknown or has no password.
  const decoy = hashPassword('not a password of anyone');

  return async function signIn(
    email: string,
    password: string,
    address: string,
  ): Promise<SignInOutcome> {
    const accountKey = `sign-in ${normalizeEmail(email.trim())}`;
    const addressKey = `sign-in ${address}`;
    const [account, fromAddress] = await Promise.all([
      perAccount.peek(accountKey),
      perAddress.peek(addressKey),
    ]);
    if (!account.allowed || !fromAddress.allowed) {
      const wait = Math.max(
        account.allowed ? 0 : account.resetSeconds,
        fromAddress.allowed ? 0 : fromAddress.resetSeconds,
      );
      return { ok: false, reason: 'throttled', retryAfterSeconds: wait };
    }
    const user = await db
      .selectFrom('users')
      .select(['id', 'password_hash', 'status'])
      .where('email', '=', normalizeEmail(email.trim()))
      .executeTakeFirst();
    const matches = await verifyPassword(password, user?.password_hash ?? (await decoy));
    if (!user || user.password_hash === null || !matches) {
      await Promise.all([perAccount.hit(accountKey), perAddress.hit(addressKey)]);
      return { ok: false, reason: 'wrong-credentials' };
    }
    if (user.status === 'erased') return { ok: false, reason: 'wrong-credentials' };
    if (user.status !== 'active') return { ok: false, reason: user.status };
    return { ok: true, userId: user.id };
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
