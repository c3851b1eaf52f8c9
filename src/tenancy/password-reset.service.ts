import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.ts';
import { hashLinkSecret, newLinkSecret } from '../platform/link-secrets.ts';
import type { Mailer } from '../platform/mailer.ts';
import { passwordResetEmail } from './account-emails.ts';
import {
  findAccountLink,
  insertAccountLink,
  linkState,
  retireAccountLinks,
  takeAccountLink,
} from './account-links.repository.ts';
import { replacePassword } from './account-sessions.ts';
import { normalizeEmail } from './email-address.ts';
import { passwordProblem } from './password-rule.ts';
import { hashPassword } from './passwords.ts';

/** How long a reset link works. */
const RESET_TTL_MS = 3600 * 1000;

/** A new password the form cannot take, in a sentence for the page. */
export class ResetRefused extends Error {
  override readonly name = 'ResetRefused';
}

export interface PasswordResetDeps {
  readonly database: Database;
  readonly mailer: Mailer;
  /** Where the pages are: the link in the email points there. */
  readonly issuer: string;
  readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  readonly now?: () => number;
}

/**
 * Forgotten passwords, when email is configured: a single-use link, valid one hour, emailed to
 * an active person's address. Asking answers the same whether or not an account has the
 * address: the work (finding the account, the link, the email) runs after the answer went, so
 * neither its words nor its time tell. A new password ends every session and refresh token of
 * the account (account-sessions.ts).
 */
export function createPasswordReset(deps: PasswordResetDeps) {
  const { database, mailer } = deps;
  const now = deps.now ?? Date.now;
  const running = new Set<Promise<void>>();

  async function sendLink(email: string): Promise<void> {
    const account = await database.db
      .selectFrom('users')
      .select(['id', 'status', 'kind'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (account?.status !== 'active' || account.kind !== 'person') return;
    const { secret, hash } = newLinkSecret('pwr_');
    const at = now();
    await database.write(async (trx) => {
      // Only the newest link works: asking again ends the ones sent before.
      await retireAccountLinks(trx, account.id, 'password-reset', at);
      await insertAccountLink(trx, {
        purpose: 'password-reset',
        secretHash: hash,
        userId: account.id,
        email,
        details: null,
        at,
        ttlMs: RESET_TTL_MS,
      });
    });
    await mailer.send({
      to: email,
      ...passwordResetEmail({ url: `${deps.issuer}/password-reset/${secret}` }),
    });
  }

  return {
    enabled: mailer.enabled,

    /** Sends a link to the account with `rawEmail`, if there is one, after returning. */
    request(rawEmail: string): void {
      if (!mailer.enabled) return;
      const email = normalizeEmail(rawEmail.trim());
      const job = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => sendLink(email))
        .catch((error: unknown) =>
          deps.log.error({ err: error }, 'sending a password reset failed'),
        )
        .finally(() => running.delete(job));
      running.add(job);
    },

    /** What a reset link is, for its page. */
    async peek(secret: string) {
      const row = await findAccountLink(database.db, 'password-reset', hashLinkSecret(secret));
      return { state: linkState(row, now()), email: row?.email ?? '' };
    },

    /** Sets the new password through the link, once; the account it was for. */
    async complete(
      secret: string,
      input: { password: string; confirmation: string },
    ): Promise<string | undefined> {
      const opened = await this.peek(secret);
      if (opened.state !== 'open') return undefined;
      const problem = passwordProblem(input.password, opened.email);
      if (problem) throw new ResetRefused(problem);
      if (input.password !== input.confirmation) {
        throw new ResetRefused('The two passwords differ: type the same one twice.');
      }
      const passwordHash = await hashPassword(input.password);
      return database.write(async (trx) => {
        const link = await takeAccountLink(trx, 'password-reset', hashLinkSecret(secret), now());
        if (!link?.user_id) return undefined;
        return (await replacePassword(trx, link.user_id, passwordHash, now()))
          ? link.user_id
          : undefined;
      });
    },

    /** Resolves once every reset asked before the call has been sent (tests; shutdown). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
