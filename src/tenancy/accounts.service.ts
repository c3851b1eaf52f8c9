import type { Database } from '../db/database.ts';
import { replacePassword } from './account-sessions.ts';
import { accountIdTaken, emailTaken, noAccount, weakNewPassword } from './accounts.errors.ts';
import { normalizeEmail } from './email-address.ts';
import { passwordProblem } from './password-rule.ts';
import { hashPassword } from './passwords.ts';
import {
  type AccountStatus,
  findUser,
  findUserIdByEmail,
  findUserStatus,
  insertUser,
  updateUserStatus,
  userExists,
} from './users.repository.ts';

export interface NewAccount {
  readonly id: string;
  readonly email: string;
  readonly name?: string | undefined;
  /** Checked by the password rule before it comes here; stored only as a salted scrypt hash. */
  readonly password?: string | undefined;
}

export interface AccountChanges {
  readonly status?: Exclude<AccountStatus, 'erased'> | undefined;
  /** A new password ends every session and refresh token of the account. */
  readonly password?: string | undefined;
}

/**
 * Accounts as the operator of the command line manages them (`mnemo admin user …`, `mnemo
 * token`). People make and mend their own through sign-up.service.ts and
 * password-reset.service.ts; an account's end is the erasure's (src/erasure/).
 */
export function createAccountsService(database: Database) {
  return {
    exists(userId: string): Promise<boolean> {
      return userExists(database.db, userId);
    },

    async status(userId: string): Promise<AccountStatus> {
      const status = await findUserStatus(database.db, userId);
      if (status === undefined) throw noAccount(userId);
      return status;
    },

    async create(account: NewAccount): Promise<void> {
      const email = normalizeEmail(account.email);
      const passwordHash =
        account.password === undefined ? undefined : await hashPassword(account.password);
      await database.write(async (trx) => {
        if (await userExists(trx, account.id)) throw accountIdTaken(account.id);
        if ((await findUserIdByEmail(trx, email)) !== undefined) throw emailTaken(email);
        await insertUser(trx, { id: account.id, email, name: account.name, passwordHash });
      });
    },

    async change(userId: string, changes: AccountChanges): Promise<void> {
      const user = await findUser(database.db, userId);
      if (!user || user.status === 'erased') throw noAccount(userId);
      const { status, password } = changes;
      const problem =
        password === undefined ? undefined : passwordProblem(password, user.email ?? undefined);
      if (problem !== undefined) throw weakNewPassword(problem);
      const passwordHash = password === undefined ? undefined : await hashPassword(password);
      const found = await database.write(async (trx) => {
        if (status !== undefined && !(await updateUserStatus(trx, userId, status))) return false;
        if (passwordHash !== undefined) return replacePassword(trx, userId, passwordHash);
        return true;
      });
      if (!found) throw noAccount(userId);
    },
  };
}
export type AccountsService = ReturnType<typeof createAccountsService>;
