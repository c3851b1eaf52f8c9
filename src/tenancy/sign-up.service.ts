import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { hashLinkSecret, newLinkSecret } from '../platform/link-secrets.ts';
import type { Mailer } from '../platform/mailer.ts';
import { accountExistsEmail, signUpEmail } from './account-emails.ts';
import {
  findAccountLink,
  insertAccountLink,
  linkState,
  takeAccountLink,
} from './account-links.repository.ts';
import { normalizeEmail } from './email-address.ts';
import { insertOrganization, upsertMembership } from './orgs.repository.ts';
import { passwordProblem } from './password-rule.ts';
import { hashPassword } from './passwords.ts';
import { findUserIdByEmail, insertUser } from './users.repository.ts';

/** How long a sign-up's confirmation link works. */
const CONFIRMATION_TTL_MS = 24 * 3600 * 1000;
/** An address as people type one: something@somewhere, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface SignUpForm {
  readonly name: string;
  readonly email: string;
  readonly password: string;
  readonly confirmation: string;
  /** The new organization's name; empty: one made from the person's name. */
  readonly organization: string;
}

/** A sign-up the form cannot go on with, in a sentence for the page. */
export class SignUpRefused extends Error {
  override readonly name = 'SignUpRefused';
}

/** What the details of a sign-up link hold until it is confirmed. */
interface PendingAccount {
  readonly name: string;
  readonly passwordHash: string;
  readonly organization: string;
}

export interface SignUpDeps {
  readonly database: Database;
  readonly mailer: Mailer;
  /** `MNEMO_SIGNUP`: only `open` takes sign-ups. */
  readonly mode: 'closed' | 'invite' | 'open';
  /** Where the pages are: the links in emails point there. */
  readonly issuer: string;
  readonly studioUrl: string;
  readonly now?: () => number;
}

/**
 * Open sign-up (`MNEMO_SIGNUP=open`): anyone makes an account, which owns a new organization.
 * With email configured, the address is confirmed first: the account is made only when the
 * emailed link is followed (until then nothing but the link's row exists), and a sign-up with
 * an address that has an account emails that fact instead, so the page says the same either
 * way. Without email the account is made at once; the address cannot be confirmed.
 */
export function createSignUp(deps: SignUpDeps) {
  const { database, mailer } = deps;
  const now = deps.now ?? Date.now;

  function check(form: SignUpForm): { email: string; name: string; organization: string } {
    const name = form.name.trim();
    const email = normalizeEmail(form.email.trim());
    if (name === '') throw new SignUpRefused('Enter your name.');
    if ([...name].length > 200)
      throw new SignUpRefused('Use at most 200 characters for your name.');
    if (!EMAIL.test(email) || email.length > 254)
      throw new SignUpRefused('Enter your email address.');
    const problem = passwordProblem(form.password, email);
    if (problem) throw new SignUpRefused(problem);
    if (form.password !== form.confirmation) {
      throw new SignUpRefused('The two passwords differ: type the same one twice.');
    }
    const organization = form.organization.trim() || `${name}’s organization`;
    if ([...organization].length > 200) {
      throw new SignUpRefused('Use at most 200 characters for the organization’s name.');
    }
    return { email, name, organization };
  }

  /** The account and its organization, owned by it; audited in the organization. */
  async function createAccount(
    trx: Kysely<Tables>,
    email: string,
    pending: PendingAccount,
  ): Promise<{ userId: string; orgId: string }> {
    if (await findUserIdByEmail(trx, email)) {
      throw new SignUpRefused('An account with this email exists: sign in to it.');
    }
    const userId = randomUUID();
    const orgId = randomUUID();
    await insertUser(trx, {
      id: userId,
      email,
      name: pending.name,
      passwordHash: pending.passwordHash,
    });
    await insertOrganization(trx, { id: orgId, name: pending.organization });
    await upsertMembership(trx, orgId, userId, 'owner');
    await recordAudit(trx, {
      orgId,
      actorId: userId,
      targetId: userId,
      action: 'member.add',
      details: { role: 'owner', via: 'sign-up' },
    });
    return { userId, orgId };
  }

  return {
    open: deps.mode === 'open',
    /** Whether the address is confirmed by email before the account exists. */
    confirmsEmail: mailer.enabled,

    /**
     * A filled-in form: with email, sends the confirmation link (or the "you have an account"
     * note) and answers `check-email`; without, makes the account at once (`created`).
     */
    async start(
      form: SignUpForm,
    ): Promise<
      | { readonly outcome: 'check-email'; readonly email: string }
      | { readonly outcome: 'created'; readonly userId: string; readonly orgId: string }
    > {
      if (deps.mode !== 'open') throw new SignUpRefused('Sign-up is closed on this server.');
      const { email, name, organization } = check(form);
      const passwordHash = await hashPassword(form.password);
      const pending: PendingAccount = { name, passwordHash, organization };
      if (!mailer.enabled) {
        const made = await database.write((trx) => createAccount(trx, email, pending));
        return { outcome: 'created', ...made };
      }
      const exists = (await findUserIdByEmail(database.db, email)) !== undefined;
      if (exists) {
        await mailer.send({
          to: email,
          ...accountExistsEmail({
            signInUrl: deps.studioUrl,
            resetUrl: `${deps.issuer}/password-reset`,
          }),
        });
        return { outcome: 'check-email', email };
      }
      const { secret, hash } = newLinkSecret('sup_');
      await database.write((trx) =>
        insertAccountLink(trx, {
          purpose: 'sign-up',
          secretHash: hash,
          userId: null,
          email,
          details: { ...pending },
          at: now(),
          ttlMs: CONFIRMATION_TTL_MS,
        }),
      );
      await mailer.send({ to: email, ...signUpEmail({ url: `${deps.issuer}/sign-up/${secret}` }) });
      return { outcome: 'check-email', email };
    },

    /** What a confirmation link is, for its page: open (with its address), used, expired… */
    async peek(secret: string) {
      const row = await findAccountLink(database.db, 'sign-up', hashLinkSecret(secret));
      return { state: linkState(row, now()), email: row?.email ?? '' };
    },

    /** Follows a confirmation link: the account is made, once. */
    async confirm(secret: string): Promise<{ userId: string; orgId: string } | undefined> {
      return database.write(async (trx) => {
        const link = await takeAccountLink(trx, 'sign-up', hashLinkSecret(secret), now());
        if (!link || link.email === null || link.details === null) return undefined;
        return createAccount(trx, link.email, JSON.parse(link.details) as PendingAccount);
      });
    },
  };
}

export type SignUp = ReturnType<typeof createSignUp>;
