import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { MemberRole, Tables } from '../db/tables.ts';
import { isoTime } from '../platform/iso-time.ts';
import { hashLinkSecret, newLinkSecret } from '../platform/link-secrets.ts';
import type { Mailer } from '../platform/mailer.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import {
  findMember,
  findUserIdByEmail,
  hashPassword,
  insertUser,
  normalizeEmail,
  passwordProblem,
  requireManager,
  upsertMembership,
} from '../tenancy/index.ts';
import { invitationEmail } from './invitation-email.ts';
import { alreadyMember, invitationNotFound, notAnEmail, ownersOnly } from './invitations.errors.ts';
import {
  findInvitation,
  findInvitationBySecret,
  type InvitationRow,
  type InvitationWithNames,
  insertInvitation,
  listPendingInvitations,
  markAccepted,
  revokeInvitation,
  revokeOpenInvitations,
} from './invitations.repository.ts';
import type { Invitation, InvitationBody, InvitationCreated } from './invitations.schemas.ts';

/** Where an invitation's link leads: `{public URL}/oauth/invitations/{secret}`. */
export const invitationUrl = (publicUrl: string, secret: string) =>
  `${publicUrl}/oauth/invitations/${secret}`;

const SECRET_PREFIX = 'inv_';
const DAY_MS = 24 * 3600 * 1000;

/** An address as people type one: something@somewhere, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function presentInvitation(row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
  };
}

/** What the invitation page shows for a link, before anyone acts on it. */
export type InvitationLookup =
  | { readonly state: 'unknown' }
  | {
      readonly state: 'open' | 'expired' | 'accepted' | 'revoked';
      readonly invitation: InvitationWithNames;
      /** Whether the invited address has an account already: sign in, or make one. */
      readonly hasAccount: boolean;
    };

/** Why an acceptance could not be done, for the page to say. */
export class InvitationRefused extends Error {
  override readonly name = 'InvitationRefused';
  readonly reason: 'gone' | 'account-exists' | 'no-account' | 'invalid';
  constructor(reason: InvitationRefused['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface InvitationsServiceDeps {
  readonly database: Database;
  readonly mailer: Mailer;
  readonly publicUrl: string;
  /** How long a link works. */
  readonly lifetimeDays: number;
  readonly log: Pick<FastifyBaseLogger, 'warn'>;
  readonly now?: () => number;
}

/**
 * Invitations to join an organization: made by its owners and admins (only owners invite
 * owners), for one email address, with a role. The link is shown once (and emailed when SMTP is
 * configured); only a hash of its secret is kept. Opening it (the invitation pages, under
 * /oauth) lets the person make an account, or sign in to the one they have, and join: once, and
 * before it expires. Every step is in the audit log.
 */
export function createInvitationsService(deps: InvitationsServiceDeps) {
  const { database, mailer } = deps;
  const now = deps.now ?? Date.now;
  const lock = database.dialect === 'postgres';

  function stateOf(row: InvitationRow, at: number) {
    if (row.accepted_at !== null) return 'accepted' as const;
    if (row.revoked_at !== null) return 'revoked' as const;
    if (row.expires_at <= at) return 'expired' as const;
    return 'open' as const;
  }

  /** The open invitation a secret opens, read (and on PostgreSQL locked) in `trx`. */
  async function openInvitation(trx: Kysely<Tables>, secret: string) {
    const row = await findInvitationBySecret(trx, hashLinkSecret(secret), { lock });
    if (!row || stateOf(row, now()) !== 'open') {
      throw new InvitationRefused('gone', 'This invitation can no longer be used.');
    }
    return row;
  }

  /** Membership with the invitation's role, the invitation used: one transaction, audited. */
  async function join(trx: Kysely<Tables>, row: InvitationWithNames, userId: string) {
    const at = now();
    if (!(await findMember(trx, row.org_id, userId))) {
      await upsertMembership(trx, row.org_id, userId, row.role);
      await recordAudit(trx, {
        orgId: row.org_id,
        actorId: userId,
        targetId: userId,
        action: 'member.add',
        details: { role: row.role, invitationId: row.id },
      });
    }
    await markAccepted(trx, row.id, userId, at);
    await recordAudit(trx, {
      orgId: row.org_id,
      actorId: userId,
      targetId: row.id,
      action: 'invitation.accept',
      details: { email: row.email, role: row.role, invitedBy: row.invited_by },
    });
    return { userId, orgId: row.org_id };
  }

  return {
    async create(caller: Caller, body: InvitationBody): Promise<InvitationCreated> {
      requireManager(caller, 'invite people');
      const email = normalizeEmail(body.email.trim());
      if (!EMAIL.test(email)) throw notAnEmail();
      const role: MemberRole = body.role ?? 'member';
      if (role === 'owner' && caller.role !== 'owner') throw ownersOnly('invite');
      const { secret, hash } = newLinkSecret(SECRET_PREFIX);
      const at = now();
      const row: InvitationRow = {
        id: randomUUID(),
        org_id: caller.orgId,
        email,
        role,
        secret_hash: hash,
        invited_by: caller.userId,
        created_at: at,
        expires_at: at + deps.lifetimeDays * DAY_MS,
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
      };
      const names = await database.write(async (trx) => {
        const existing = await findUserIdByEmail(trx, email);
        if (existing && (await findMember(trx, caller.orgId, existing))) {
          throw alreadyMember(email);
        }
        // Inviting again replaces the link: only the newest one works.
        const replaced = await revokeOpenInvitations(trx, caller.orgId, email, at);
        await insertInvitation(trx, row);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: row.id,
          action: 'invitation.create',
          details: { email, role, replaced },
        });
        return findInvitationBySecret(trx, hash);
      });
      const url = invitationUrl(deps.publicUrl, secret);
      let emailed = false;
      if (mailer.enabled && names) {
        try {
          await mailer.send({
            to: email,
            ...invitationEmail({
              url,
              orgName: names.org_name,
              inviter: names.inviter_name ?? names.inviter_email ?? 'Someone',
              expiresAt: row.expires_at,
            }),
          });
          emailed = true;
        } catch (error) {
          deps.log.warn({ err: error, invitationId: row.id }, 'sending an invitation failed');
        }
      }
      return { invitation: presentInvitation(row), url, emailed };
    },

    async list(caller: Caller): Promise<Invitation[]> {
      requireManager(caller, 'see invitations');
      return (await listPendingInvitations(database.db, caller.orgId, now())).map(
        presentInvitation,
      );
    },

    /** Revokes an open invitation; done also when it was revoked already; 404 when unknown. */
    async revoke(caller: Caller, rawId: string): Promise<void> {
      requireManager(caller, 'revoke invitations');
      const id = parseUuid(rawId);
      await database.write(async (trx) => {
        const row = id ? await findInvitation(trx, caller.orgId, id) : undefined;
        if (!row) throw invitationNotFound();
        if (row.role === 'owner' && caller.role !== 'owner') {
          throw ownersOnly('revoke');
        }
        if (await revokeInvitation(trx, row.id, now())) {
          await recordAudit(trx, {
            orgId: caller.orgId,
            actorId: caller.userId,
            targetId: row.id,
            action: 'invitation.revoke',
            details: { email: row.email, role: row.role },
          });
        }
      });
    },

    /** What a link opens: the invitation and its state, or nothing known. */
    async lookup(secret: string): Promise<InvitationLookup> {
      const row = await findInvitationBySecret(database.db, hashLinkSecret(secret));
      if (!row) return { state: 'unknown' };
      const hasAccount = (await findUserIdByEmail(database.db, row.email)) !== undefined;
      return { state: stateOf(row, now()), invitation: row, hasAccount };
    },

    /**
     * Makes the invited person's account (the invitation's email, the name and password given)
     * and the membership, and uses the invitation. Refused when the link is no longer open, when
     * an account with the address exists (sign in instead), or when the password breaks the
     * rule.
     */
    async acceptWithNewAccount(
      secret: string,
      input: { name: string; password: string; confirmation: string },
    ): Promise<{ userId: string; orgId: string }> {
      const opened = await this.lookup(secret);
      if (opened.state !== 'open')
        throw new InvitationRefused('gone', 'This invitation can no longer be used.');
      const name = input.name.trim();
      if (name === '') throw new InvitationRefused('invalid', 'Enter your name.');
      if ([...name].length > 200)
        throw new InvitationRefused('invalid', 'Use at most 200 characters for your name.');
      const problem = passwordProblem(input.password, opened.invitation.email);
      if (problem) throw new InvitationRefused('invalid', problem);
      if (input.password !== input.confirmation) {
        throw new InvitationRefused(
          'invalid',
          'The two passwords differ: type the same one twice.',
        );
      }
      const passwordHash = await hashPassword(input.password);
      return database.write(async (trx) => {
        const row = await openInvitation(trx, secret);
        if (await findUserIdByEmail(trx, row.email)) {
          throw new InvitationRefused(
            'account-exists',
            'An account with this email exists: sign in to join.',
          );
        }
        const userId = randomUUID();
        await insertUser(trx, { id: userId, email: row.email, name, passwordHash });
        return join(trx, row, userId);
      });
    },

    /**
     * Joins with the account the person signed in to, which must be the invited address's:
     * a link that reached someone else opens nothing to them.
     */
    async acceptAsAccount(
      secret: string,
      userId: string,
    ): Promise<{ userId: string; orgId: string }> {
      return database.write(async (trx) => {
        const row = await openInvitation(trx, secret);
        if ((await findUserIdByEmail(trx, row.email)) !== userId) {
          throw new InvitationRefused('no-account', 'This invitation is for another account.');
        }
        return join(trx, row, userId);
      });
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
