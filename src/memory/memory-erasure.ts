import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/tables.ts';
import { openStoreOutbox, type StoreOutbox } from '../webhooks/index.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { nextUpdatedAt } from './memory-writes.ts';

/**
 * The contributor the tombstones of an erased identity's pool contributions name: one row of
 * the store (status `erased`), made by the migration 2026-11-28T00_people. The max UUID (RFC 9562
 * §5.10), which no user is given.
 */
export const ERASED_CONTRIBUTOR = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** What erasing one identity's memories removed. */
export interface ErasedMemories {
  /** Active memories of its own stores, gone with every row of those stores. */
  readonly own: number;
  /** Active memories it contributed to project pools, left as tombstones. */
  readonly contributed: number;
  /** Memory proposals waiting for it. */
  readonly proposals: number;
  /** The ids of its own stores, which no longer exist. */
  readonly erasedStores: readonly string[];
}

/**
 * Erases every memory of one identity, in the caller's write transaction (the rest of the
 * identity goes in the same one, src/erasure/identity-erasure.ts):
 * - its own stores, in every organization: every row (tombstones too), their vectors and
 *   embedding progress (the foreign keys' cascade), their search index entries (SQLite's
 *   triggers; PostgreSQL's index is a column of the row), and the store's counter row;
 * - what it contributed to project pools: deleted as any delete is (a tombstone in the pool's
 *   counter order, so that every client syncing the pool is told, and the pool's webhooks),
 *   their vectors dropped;
 * - the memory proposals waiting for it.
 *
 * Each store's counter row is taken first, in one order, as every write of the store takes it:
 * a write to the same store runs before or after, never between. The pool tombstones then name
 * ERASED_CONTRIBUTOR, and nothing in the store refers to the identity's row any more: the
 * erasure deletes it last, and a write that passed its checks before and arrives after is
 * refused by the foreign key (`isMissingContributor`): nothing is written for an erased identity.
 */
export function createMemoryErasure(deps: {
  readonly database: Pick<Database, 'dialect'>;
  readonly repository: MemoryRepository;
  readonly embeddings: MemoryEmbeddingsRepository;
}) {
  const { repository: repo, embeddings } = deps;
  const rowLocks = deps.database.dialect === 'postgres';

  async function eraseOwnStores(trx: Kysely<Tables>, userId: string) {
    const stores = await trx
      .selectFrom('scopes')
      .select('id')
      .where('kind', '=', 'user')
      .where('owner_id', '=', userId)
      .orderBy('id')
      .$if(rowLocks, (q) => q.forUpdate())
      .execute();
    const ids = stores.map((store) => store.id);
    if (ids.length === 0) return { own: 0, erasedStores: ids };
    const active = await trx
      .selectFrom('memories')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('scope_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('memories').where('scope_id', 'in', ids).execute();
    await trx.deleteFrom('scopes').where('id', 'in', ids).execute();
    return { own: Number(active.count), erasedStores: ids };
  }

  async function tombstoneContributions(trx: Kysely<Tables>, userId: string, at: number) {
    const contributed = await trx
      .selectFrom('memories as m')
      .innerJoin('scopes as s', 's.id', 'm.scope_id')
      .select(['m.id', 's.id as scope_id', 's.org_id', 's.owner_id'])
      .where('m.contributor_id', '=', userId)
      .where('s.kind', '=', 'project')
      .where('m.deleted_at', 'is', null)
      .orderBy('s.id')
      .orderBy('m.version')
      .execute();
    let lockedScope: string | undefined;
    let outbox: StoreOutbox | undefined;
    let deleted = 0;
    for (const memory of contributed) {
      if (memory.scope_id !== lockedScope) {
        const pool = { orgId: memory.org_id, kind: 'project' as const, ownerId: memory.owner_id };
        await repo.lockScope(trx, pool);
        lockedScope = memory.scope_id;
        outbox = await openStoreOutbox(trx, pool);
      }
      // Read again under the pool's lock: a delete may have come first.
      const current = await repo.findById(trx, memory.id);
      if (!current || current.deleted_at !== null) continue;
      const version = await repo.bumpScope(trx, memory.scope_id);
      const deletedAt = nextUpdatedAt(at, current.updated_at);
      await repo.writeMemory(trx, {
        ...current,
        content: '',
        fold_key: '',
        category: null,
        version,
        updated_at: deletedAt,
        deleted_at: deletedAt,
      });
      await embeddings.dropVectors(trx, current.id);
      // Webhooks of the pool are told, as of any delete.
      await outbox?.record({
        type: 'memory.deleted',
        data: { memory: { id: current.id } },
        memoryId: current.id,
        at,
      });
      deleted += 1;
    }
    // Its tombstones, these and older ones, no longer name it.
    await trx
      .updateTable('memories')
      .set({ contributor_id: ERASED_CONTRIBUTOR })
      .where('contributor_id', '=', userId)
      .execute();
    return deleted;
  }

  return {
    async eraseMemoriesOf(
      trx: Kysely<Tables>,
      userId: string,
      at: number,
    ): Promise<ErasedMemories> {
      const { own, erasedStores } = await eraseOwnStores(trx, userId);
      const contributed = await tombstoneContributions(trx, userId, at);
      const proposals = await trx
        .deleteFrom('memory_proposals')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return { own, contributed, proposals: Number(proposals.numDeletedRows), erasedStores };
    },
  };
}

export type MemoryErasure = ReturnType<typeof createMemoryErasure>;

/**
 * Whether the store refused a new memory because its contributor's row is gone (an identity
 * erased after the write's checks): the foreign key, PostgreSQL's SQLSTATE or SQLite's words.
 */
export function isMissingContributor(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    (error as { code?: unknown }).code === '23503' ||
    error.message.includes('FOREIGN KEY constraint failed')
  );
}
