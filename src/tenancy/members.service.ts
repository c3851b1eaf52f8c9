import type { Kysely } from 'kysely';
import { OPERATOR_ACTOR_ID, recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { MemberRole, Tables } from '../db/tables.ts';
import { parseUuid } from '../platform/uuid.ts';
import { notAMember } from './admission.errors.ts';
import type { Caller } from './authenticate.ts';
import {
  alreadyMember,
  lastOwner,
  memberNotFound,
  noUserWithEmail,
  ownersOnly,
} from './members.errors.ts';
import {
  countOwners,
  deleteMembership,
  findMember,
  findMemberRole,
  findOrganization,
  listMembers,
  type MemberRow,
  upsertMembership,
} from './orgs.repository.ts';
import type { Member, MemberAddBody } from './orgs.schemas.ts';
import { deleteOrganizationGrants } from './projects.repository.ts';
import { requireManager } from './roles.ts';
import { findUserIdByEmail } from './users.repository.ts';

/** The rule that holds whoever acts: an organization always keeps an owner (409). */
async function keepAnOwner(
  trx: Kysely<Tables>,
  orgId: string,
  member: { role: MemberRole },
  change: 'demoted' | 'removed',
): Promise<void> {
  if (member.role === 'owner' && (await countOwners(trx, orgId)) <= 1) {
    throw lastOwner(change);
  }
}

/**
 * Takes a member out with the member's grants on the organization's projects, and audits it: a
 * member who leaves loses pool access, and adding the user again must not bring the old grants
 * back.
 */
async function deleteMember(
  trx: Kysely<Tables>,
  orgId: string,
  actorId: string,
  member: { id: string; role: MemberRole },
): Promise<number> {
  await deleteMembership(trx, orgId, member.id);
  const revokedGrants = await deleteOrganizationGrants(trx, orgId, member.id);
  await recordAudit(trx, {
    orgId,
    actorId,
    targetId: member.id,
    action: 'member.remove',
    details: { role: member.role, revokedGrants },
  });
  return revokedGrants;
}

export function presentMember(row: MemberRow): Member {
  // The store holds every person to an email (users_person_email); erased rows are no members.
  if (row.email === null || row.status === 'erased') {
    throw new Error(`member ${row.id} is not a person with an email`);
  }
  return {
    userId: row.id,
    email: row.email,
    ...(row.name === null ? {} : { name: row.name }),
    role: row.role,
    status: row.status,
    joinedAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * The studio's member management: owners and admins add, change and remove members; only
 * owners make or touch owners; an organization always keeps an owner. Each change and its audit
 * row are one transaction, which on PostgreSQL first takes the organization's row, so that two
 * changes at once cannot both count the same other owner.
 */
export function createMembersService(database: Database) {
  const lock = database.dialect === 'postgres';

  /**
   * The caller's role, read in the change's transaction once the organization is locked: a
   * role changed since authentication counts, not the one authentication read.
   */
  async function lockedActor(trx: Kysely<Tables>, caller: Caller, what: string) {
    await findOrganization(trx, caller.orgId, { lock });
    const actor = await findMemberRole(trx, caller.orgId, caller.userId);
    if (actor === undefined) throw notAMember();
    requireManager({ role: actor }, what);
    return actor;
  }

  async function targetMember(trx: Kysely<Tables>, caller: Caller, rawId: string) {
    const userId = parseUuid(rawId);
    const member = userId ? await findMember(trx, caller.orgId, userId) : undefined;
    // End users and apps are managed on their own pages, not as the organization's people.
    if (member?.kind !== 'person') throw memberNotFound();
    return member;
  }

  return {
    async list(caller: Caller): Promise<Member[]> {
      return (await listMembers(database.db, caller.orgId)).map(presentMember);
    },

    /** Adds an existing user, found by email (any case), with `role` (default member). */
    async add(caller: Caller, body: MemberAddBody): Promise<Member> {
      requireManager(caller, 'add members');
      const role: MemberRole = body.role ?? 'member';
      if (role === 'owner' && caller.role !== 'owner') {
        throw ownersOnly('make');
      }
      return database.write(async (trx) => {
        const actor = await lockedActor(trx, caller, 'add members');
        if (role === 'owner' && actor !== 'owner') throw ownersOnly('make');
        const userId = await findUserIdByEmail(trx, body.email.trim());
        if (!userId) throw noUserWithEmail();
        if (await findMember(trx, caller.orgId, userId)) {
          throw alreadyMember();
        }
        await upsertMembership(trx, caller.orgId, userId, role);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: userId,
          action: 'member.add',
          details: { role },
        });
        const added = await findMember(trx, caller.orgId, userId);
        if (!added) throw memberNotFound();
        return presentMember(added);
      });
    },

    async changeRole(caller: Caller, rawUserId: string, role: MemberRole): Promise<Member> {
      requireManager(caller, "change members' roles");
      return database.write(async (trx) => {
        const actor = await lockedActor(trx, caller, "change members' roles");
        const member = await targetMember(trx, caller, rawUserId);
        if (actor !== 'owner' && (member.role === 'owner' || role === 'owner')) {
          throw ownersOnly('change');
        }
        if (member.role === role) return presentMember(member);
        await keepAnOwner(trx, caller.orgId, member, 'demoted');
        await upsertMembership(trx, caller.orgId, member.id, role);
        await recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: member.id,
          action: 'member.role',
          details: { from: member.role, to: role },
        });
        return presentMember({ ...member, role });
      });
    },

    /** Removes a member and the member's grants on the organization's projects, as the CLI does. */
    async remove(caller: Caller, rawUserId: string): Promise<void> {
      requireManager(caller, 'remove members');
      await database.write(async (trx) => {
        const actor = await lockedActor(trx, caller, 'remove members');
        const member = await targetMember(trx, caller, rawUserId);
        if (actor !== 'owner' && member.role === 'owner') {
          throw ownersOnly('remove');
        }
        await keepAnOwner(trx, caller.orgId, member, 'removed');
        await deleteMember(trx, caller.orgId, caller.userId, member);
      });
    },

    /**
     * What an operator does with `mnemo admin member …`. The operator is no member, so no role
     * limits them (they may make and remove owners), but the organization still keeps an owner,
     * and every change is audited, with OPERATOR_ACTOR_ID as its actor.
     */
    byOperator: {
      /** Adds the user with `role`, or changes the member's role to it. */
      async setRole(
        orgId: string,
        userId: string,
        role: MemberRole,
      ): Promise<'added' | 'changed' | 'unchanged'> {
        return database.write(async (trx) => {
          await findOrganization(trx, orgId, { lock });
          const member = await findMember(trx, orgId, userId);
          if (member?.role === role) return 'unchanged';
          if (member && role !== 'owner') await keepAnOwner(trx, orgId, member, 'demoted');
          await upsertMembership(trx, orgId, userId, role);
          await recordAudit(trx, {
            orgId,
            actorId: OPERATOR_ACTOR_ID,
            targetId: userId,
            ...(member
              ? { action: 'member.role', details: { from: member.role, to: role } }
              : { action: 'member.add', details: { role } }),
          });
          return member ? 'changed' : 'added';
        });
      },

      /** The grants revoked with the membership; undefined when the user was not a member. */
      async remove(orgId: string, userId: string): Promise<{ revokedGrants: number } | undefined> {
        return database.write(async (trx) => {
          await findOrganization(trx, orgId, { lock });
          const member = await findMember(trx, orgId, userId);
          if (!member) return undefined;
          await keepAnOwner(trx, orgId, member, 'removed');
          return { revokedGrants: await deleteMember(trx, orgId, OPERATOR_ACTOR_ID, member) };
        });
      },
    },
  };
}
export type MembersService = ReturnType<typeof createMembersService>;
