import { type Kysely, type RawBuilder, sql } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { openStoreOutbox } from '../webhooks/index.ts';
import type { CursorScope } from './cursor.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { Category } from './memory.schemas.ts';
import type { AuditedAct } from './memory-writes.ts';

/** PostgreSQL: the longest the erase's statements may run (a request's usual limit is 5 s). */
const ERASE_TIMEOUT_MS = 60_000;

/**
 * What the memories an erase deletes count for in the store's search counts: how many hold terms,
 * and their terms (the words of `search_terms`, one space apart, as the counts trigger counts).
 */
async function countsOf(trx: Kysely<Tables>, scopeId: string, inCategory: RawBuilder<unknown>) {
  const { rows } = await sql<{ memories: number | string; terms: number | string | null }>`
    select count(*) as memories,
      sum(length(m.search_terms) - length(replace(m.search_terms, ' ', '')) + 1) as terms
    from memories as m
    where m.scope_id = ${scopeId} and m.deleted_at is null and m.search_terms <> '' ${inCategory}`.execute(
    trx,
  );
  return { memories: Number(rows[0]?.memories ?? 0), terms: Number(rows[0]?.terms ?? 0) };
}

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
 * audited once, with the count; a webhook's event is one for the erase (none when nothing went).
 * The same statements on both engines. Answers how many went.
 */
export async function eraseStore(
  deps: { readonly database: Database; readonly repository: MemoryRepository },
  erase: StoreErase,
): Promise<number> {
  const { database, repository } = deps;
  const postgres = database.dialect === 'postgres';
  return database.write(async (trx) => {
    const state = await repository.lockScope(trx, erase.scope);
    const start = state.version;
    const inCategory = erase.category === null ? sql`` : sql`and m.category = ${erase.category}`;
    // PostgreSQL's counts trigger would update the store's counts row once per memory, 100,000
    // times for a large store: the erase counts what goes once, and tells the trigger to leave
    // its rows (as mnemo_add_memories does, migration 2026-11-28T02_search_words). The one
    // statement may take longer than a request's usual limit on a very large store.
    const gone = postgres ? await countsOf(trx, state.id, inCategory) : { memories: 0, terms: 0 };
    if (postgres) {
      await sql`select set_config('statement_timeout', ${String(ERASE_TIMEOUT_MS)}, true),
        set_config('mnemo.search_counts_kept_by_writer', 'on', true)`.execute(trx);
    }
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
    if (postgres) {
      await sql`select set_config('mnemo.search_counts_kept_by_writer', 'off', true)`.execute(trx);
      if (gone.memories > 0) {
        await sql`update memory_search_counts set memories = memories - ${gone.memories},
          terms = terms - ${gone.terms} where scope_id = ${state.id}`.execute(trx);
      }
    }
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
      // Webhooks: one event for the erase, never one per memory (docs/design.md §3.9).
      await (await openStoreOutbox(trx, erase.scope))?.record({
        type: 'store.erased',
        data: { ...(erase.category && { category: erase.category }), deleted: count },
        at: erase.at,
      });
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
