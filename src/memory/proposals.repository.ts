import type { Kysely, Selectable } from 'kysely';
import type { MemoryProposalsTable, Tables } from '../db/tables.ts';

export type ProposalRow = Selectable<MemoryProposalsTable>;

/**
 * The memories extraction proposed while it waits for review (MNEMO_MEMORY_EXTRACTION=review),
 * each visible to the member whose memories they are.
 */
export function createProposalsRepository(db: Kysely<Tables>) {
  return {
    async insertMany(trx: Kysely<Tables>, rows: readonly ProposalRow[]): Promise<void> {
      if (rows.length > 0)
        await trx
          .insertInto('memory_proposals')
          .values([...rows])
          .execute();
    },

    /** How many wait for this member, counting no further than `limit`. */
    async pendingUpTo(trx: Kysely<Tables>, orgId: string, userId: string, limit: number) {
      const rows = await trx
        .selectFrom('memory_proposals')
        .select('id')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .limit(limit)
        .execute();
      return rows.length;
    },

    /** The member's proposals, oldest first: the order they were made in. */
    list: (orgId: string, userId: string): Promise<ProposalRow[]> =>
      db
        .selectFrom('memory_proposals')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),

    find: (orgId: string, userId: string, id: string): Promise<ProposalRow | undefined> =>
      db
        .selectFrom('memory_proposals')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst(),

    /** Removes one; false when it was not there (decided already, by another request). */
    async remove(trx: Kysely<Tables>, orgId: string, userId: string, id: string) {
      const result = await trx
        .deleteFrom('memory_proposals')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type ProposalsRepository = ReturnType<typeof createProposalsRepository>;
