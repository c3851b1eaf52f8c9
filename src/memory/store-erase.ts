import { sql } from 'kysely';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Database } from '../db/database.ts';
import type { CursorScope } from './cursor.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { Category } from './memory.schemas.ts';
import type { AuditedAct } from './memory-writes.ts';

export interface StoreErase {
  readonly scope: CursorScope;
  /** Only the memories of this category; null: every memory. */
  readonly category: Category | null;
  readonly at: number;
  readonly audit: AuditedAct | undefined;
}

/**
 * Deletes every active memory of a store (of one category) in one transaction, under the store's
 * lock as every write of it: an add that took the lock first is deleted with the rest, one that
 * waits for it survives. Each memory becomes a tombstone as a delete makes one (content, fold key,
 * category and terms gone, `updatedAt` = `deletedAt` = the erase's time, or one past its last
 * change), numbered in the store's change counter one after another in the order they were
 * written, so every cursor's next pull lists each in `deleted`. The search index follows the terms
 * (its triggers), the vectors go in the same transaction, and an act for another member is
 * audited once, with the count. The same statements on both engines. Answers how many went.
 */
export async function eraseStore(
  deps: { readonly database: Database; readonly repository: MemoryRepository },
  erase: StoreErase,
): Promise<number> {
  const { database, repository } = deps;
  return database.write(async (trx) => {
    const state = await repository.lockScope(trx, erase.scope);
    const start = state.version;
    const inCategory = erase.category === null ? sql`` : sql`and m.category = ${erase.category}`;
    // `at`, or one past the memory's last change: `updatedAt` strictly increases.
    const after = sql`case when ${erase.at} > memories.updated_at then ${erase.at}
      else memories.updated_at + 1 end`;
    const erased = await sql`update memories set content = '', fold_key = '', category = null,
        search_terms = '', version = ${start} + erased.n, updated_at = ${after},
        deleted_at = ${after}
      from (select m.id, row_number() over (order by m.version) as n from memories as m
        where m.scope_id = ${state.id} and m.deleted_at is null ${inCategory}) as erased
      where memories.id = erased.id`.execute(trx);
    const count = Number(erased.numAffectedRows ?? 0);
    if (count > 0) {
      await trx
        .updateTable('scopes')
        .set({ version: start + count })
        .where('id', '=', state.id)
        .execute();
      await trx
        .deleteFrom('memory_embeddings')
        .where('memory_id', 'in', (eb) =>
          eb
            .selectFrom('memories')
            .select('id')
            .where('scope_id', '=', state.id)
            .where('version', '>', start),
        )
        .execute();
    }
    if (erase.audit) {
      await recordAudit(trx, {
        ...erase.audit,
        action: 'erase',
        details: { deleted: count, ...(erase.category && { category: erase.category }) },
      });
    }
    return count;
  });
}
