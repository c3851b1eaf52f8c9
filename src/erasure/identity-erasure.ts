import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { deleteEndUserRow } from '../end-users/index.ts';
import { deleteKeysOfUser } from '../keys/index.ts';
import {
  createMemoryEmbeddingsRepository,
  createMemoryErasure,
  createMemoryRepository,
  type ErasedMemories,
  type MemoryErasure,
} from '../memory/index.ts';
import { deleteClientsOfServiceUser } from '../oauth/index.ts';
import { isoTime } from '../platform/iso-time.ts';
import {
  byName,
  deleteErasedUser,
  deleteMembership,
  deleteOrganizationGrants,
  endAccountSessions,
  findOrganization,
  lockUserRow,
} from '../tenancy/index.ts';
import { forgetPersonInOutbox, recordEndUserEvent } from '../webhooks/index.ts';

/** What an erasure removed: counts only, as the audit log keeps them. */
export interface ErasureSummary {
  /** Active memories of the identity's own store. */
  readonly memories: number;
  /** Active memories it had contributed to project pools, now deleted. */
  readonly poolMemories: number;
  readonly proposals: number;
  readonly projectGrants: number;
  readonly apiKeys: number;
}

export interface ErasureDeps {
  readonly database: Database;
  readonly memories: MemoryErasure;
  /** Told the stores that no longer exist once the erasure committed (memory's caches). */
  readonly storesErased: (scopeIds: readonly string[]) => void;
  readonly now?: () => number;
}

/**
 * Erases an identity that never signs in (an end user, an app) from the organization that holds
 * it: every memory it had and every memory proposal for it (memory/memory-erasure.ts), its
 * membership and project grants, its API keys, its OAuth clients and records, its external id,
 * and its row: nothing can act as it again, and its tokens name no account. One transaction:
 * all of it or none of it. The audit log records that it happened, who did it and how much
 * went, never what.
 */
export function createIdentityErasure(deps: ErasureDeps) {
  const now = deps.now ?? Date.now;
  const rowLocks = deps.database.dialect === 'postgres';

  /** Erases `userId` from the organizations `orgIds` and everywhere else, in `trx`. */
  async function eraseIn(
    trx: Kysely<Tables>,
    orgIds: readonly string[],
    userId: string,
    at: number,
  ): Promise<{ summary: ErasureSummary; memories: ErasedMemories }> {
    if (rowLocks) await lockUserRow(trx, userId);
    // Webhooks: what waits to be sent of them, and their deliveries' log, go first, while their
    // pool memories still name them.
    await forgetPersonInOutbox(trx, userId);
    const endUser = await trx
      .selectFrom('end_users')
      .select(['org_id', 'external_id', 'created_at'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    const memories = await deps.memories.eraseMemoriesOf(trx, userId, at);
    let projectGrants = 0;
    for (const orgId of orgIds) {
      projectGrants += await deleteOrganizationGrants(trx, orgId, userId);
      await deleteMembership(trx, orgId, userId);
    }
    const apiKeys = await deleteKeysOfUser(trx, userId);
    await deleteClientsOfServiceUser(trx, userId);
    await endAccountSessions(trx, userId);
    await trx.deleteFrom('account_links').where('user_id', '=', userId).execute();
    await deleteEndUserRow(trx, userId);
    await deleteErasedUser(trx, userId);
    if (endUser) {
      // The app is told by its own id (its name is not repeated); once sent, only the mnemo id
      // stays in the delivery log.
      await recordEndUserEvent(trx, {
        orgId: endUser.org_id,
        type: 'end_user.erased',
        userId,
        externalId: endUser.external_id,
        endUser: {
          id: userId,
          externalId: endUser.external_id,
          createdAt: isoTime(endUser.created_at),
        },
        at,
      });
    }
    return {
      summary: {
        memories: memories.own,
        poolMemories: memories.contributed,
        proposals: memories.proposals,
        projectGrants,
        apiKeys,
      },
      memories,
    };
  }

  return {
    /**
     * Erases the identity `find` names (an end user or app of `orgId`, found inside the
     * transaction, so that two erasures cannot both find it), on behalf of `actorId`, recorded
     * as `action` with `details` (nothing personal) beside the counts. Undefined when `find`
     * found nothing.
     */
    async erase(request: {
      readonly orgId: string;
      readonly actorId: string;
      readonly action: string;
      readonly details?: Readonly<Record<string, unknown>>;
      readonly find: (trx: Kysely<Tables>) => Promise<string | undefined>;
    }): Promise<ErasureSummary | undefined> {
      const done = await deps.database.write(async (trx) => {
        const userId = await request.find(trx);
        if (userId === undefined) return undefined;
        const erased = await eraseIn(trx, [request.orgId], userId, now());
        await recordAudit(trx, {
          orgId: request.orgId,
          actorId: request.actorId,
          targetId: userId,
          action: request.action,
          details: { ...request.details, ...erased.summary },
        });
        return erased;
      });
      if (!done) return undefined;
      deps.storesErased(done.memories.erasedStores);
      return done.summary;
    },

    /**
     * Erases a person everywhere: what `erase` erases of an identity, in every organization they
     * belong to, and the invitations sent to their email; audited once in each of those
     * organizations as `action`, by `actorId`. Refused, erasing nothing, while they are the only
     * owner of an organization that other people belong to: it would be left with no one to run
     * it. End users and apps run nothing: an organization only they are left in keeps them, its
     * projects and its pools for the operator to hand on. Undefined when there is no such user
     * (or only the id of one erased before).
     */
    async eraseAccount(request: {
      readonly userId: string;
      readonly actorId: string;
      readonly action: string;
    }): Promise<AccountErasure | undefined> {
      const { userId } = request;
      const done = await deps.database.write(async (trx) => {
        const user = await trx
          .selectFrom('users')
          .select(['id', 'email', 'status'])
          .where('id', '=', userId)
          .$if(rowLocks, (q) => q.forUpdate())
          .executeTakeFirst();
        if (!user || user.status === 'erased') return undefined;
        const memberships = await trx
          .selectFrom('memberships as m')
          .innerJoin('organizations as o', 'o.id', 'm.org_id')
          .select(['m.org_id', 'm.role', 'o.name'])
          .where('m.user_id', '=', userId)
          .orderBy('m.org_id')
          .execute();
        const leftWithoutOwner = [];
        for (const membership of memberships) {
          if (membership.role !== 'owner') continue;
          // Taken as every change of the organization's members takes it (in one order: by id),
          // so that a demotion, or the erasure of its other owner, waits and is then counted.
          if (rowLocks) await findOrganization(trx, membership.org_id, { lock: true });
          const others = await othersOf(trx, membership.org_id, userId);
          if (others.owners === 0 && others.people > 0) leftWithoutOwner.push(membership);
        }
        if (leftWithoutOwner.length > 0) {
          const refused = leftWithoutOwner.map((m) => ({ id: m.org_id, name: m.name }));
          return { refused: refused.sort(byName) } as const;
        }
        const orgIds = memberships.map((m) => m.org_id);
        const erased = await eraseIn(trx, orgIds, userId, now());
        const invitations =
          user.email === null
            ? 0
            : Number(
                (
                  await trx
                    .deleteFrom('invitations')
                    .where('email', '=', user.email)
                    .executeTakeFirst()
                ).numDeletedRows,
              );
        const summary = { ...erased.summary, invitations };
        for (const orgId of orgIds) {
          await recordAudit(trx, {
            orgId,
            actorId: request.actorId,
            targetId: userId,
            action: request.action,
            details: summary,
          });
        }
        return { summary, organizations: orgIds.length, memories: erased.memories };
      });
      if (!done) return undefined;
      if ('refused' in done) return { refused: done.refused };
      deps.storesErased(done.memories.erasedStores);
      return { summary: done.summary, organizations: done.organizations };
    },
  };
}

/**
 * How many people (of any role), and owners among them, an organization has besides `userId`.
 * End users and apps are its members for the memory API, but none of them signs in to run it.
 */
async function othersOf(trx: Kysely<Tables>, orgId: string, userId: string) {
  const row = await trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('people'),
      eb.fn
        .count<number | string>(eb.case().when('m.role', '=', 'owner').then(1).end())
        .as('owners'),
    ])
    .where('m.org_id', '=', orgId)
    .where('m.user_id', '!=', userId)
    .where('u.kind', '=', 'person')
    .executeTakeFirstOrThrow();
  return { people: Number(row.people), owners: Number(row.owners) };
}

/** What erasing a person everywhere did, or why it did nothing. */
export type AccountErasure =
  | {
      readonly summary: ErasureSummary & { readonly invitations: number };
      /** The organizations they belonged to, in each of which it is audited. */
      readonly organizations: number;
    }
  /** The organizations they alone own and other people belong to, by name: nothing was erased. */
  | { readonly refused: readonly { readonly id: string; readonly name: string }[] };

export type IdentityErasure = ReturnType<typeof createIdentityErasure>;

/**
 * The erasure of a process that keeps nothing of any store (the `mnemo` command). A server on
 * the same store needs no word of it: its kept lists and vectors are found through a store's
 * row, which is gone, and a new store gets a new id (memory/list-cache.ts); nor does it keep
 * anything that would admit the person: every request reads the account's row, and API keys
 * are not kept.
 */
export function createUncachedErasure(database: Database): IdentityErasure {
  return createIdentityErasure({
    database,
    memories: createMemoryErasure({
      database,
      repository: createMemoryRepository(database),
      embeddings: createMemoryEmbeddingsRepository(database),
    }),
    storesErased: () => {},
  });
}
