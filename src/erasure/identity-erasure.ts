import type { Kysely } from 'kysely';
import { endAccountSessions } from '../accounts/account-sessions.ts';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { deleteEndUserRow } from '../end-users/end-users.repository.ts';
import { deleteKeysOfUser } from '../keys/keys.repository.ts';
import type { ErasedMemories, MemoryErasure } from '../memory/memory-erasure.ts';
import { deleteClientsOfServiceUser } from '../oauth/clients.repository.ts';
import { deleteMembership } from '../orgs/orgs.repository.ts';
import { deleteErasedUser, lockUserRow } from '../orgs/users.repository.ts';
import { deleteOrganizationGrants } from '../projects/projects.repository.ts';

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

  async function eraseIn(
    trx: Kysely<Tables>,
    orgId: string,
    userId: string,
    at: number,
  ): Promise<{ summary: ErasureSummary; memories: ErasedMemories }> {
    if (rowLocks) await lockUserRow(trx, userId);
    const memories = await deps.memories.eraseMemoriesOf(trx, userId, at);
    const projectGrants = await deleteOrganizationGrants(trx, orgId, userId);
    await deleteMembership(trx, orgId, userId);
    const apiKeys = await deleteKeysOfUser(trx, userId);
    await deleteClientsOfServiceUser(trx, userId);
    await endAccountSessions(trx, userId);
    await trx.deleteFrom('account_links').where('user_id', '=', userId).execute();
    await deleteEndUserRow(trx, userId);
    await deleteErasedUser(trx, userId);
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
        const erased = await eraseIn(trx, request.orgId, userId, now());
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
  };
}

export type IdentityErasure = ReturnType<typeof createIdentityErasure>;
