import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type { Tables } from '../db/tables.ts';
import type { ShownMemory } from './memory.repository.ts';

/** A store whose changes since `done` may lack vectors: its counter is past its progress. */
export interface PendingScope {
  readonly id: string;
  /** The store's change counter as last committed. */
  readonly version: number;
  /** Every active memory of version up to this one has its vector. */
  readonly done: number;
}

/** An active memory without a current vector. */
export interface PendingMemory {
  readonly id: string;
  readonly version: number;
  readonly content: string;
}

/** A vector computed from a memory as it was at `version`; empty: the provider refused it. */
export interface ComputedVector {
  readonly memoryId: string;
  readonly version: number;
  readonly vector: Uint8Array;
}

/** A memory of a store changed after some version, with its current vector if it has one. */
export interface ChangedMemory {
  readonly id: string;
  readonly version: number;
  readonly category: string | null;
  readonly deleted_at: number | null;
  /** Null when the memory has no vector of the model at its current version. */
  readonly vector: Uint8Array | null;
}

/**
 * The queries of semantic search: the indexer's (what lacks a vector, writing vectors), the
 * search's (a store's current vectors), and the memory writes' (a delete drops its memory's
 * vectors, a change that keeps the content keeps them current). Repositories hold queries only;
 * the scope is named by every query.
 */
export function createMemoryEmbeddingsRepository(database: Database) {
  const { db } = database;
  const rowLocks = database.dialect === 'postgres';

  const pendingScopes = prepareQuery((p: { model: string; limit: number }) =>
    db
      .selectFrom('scopes as s')
      .leftJoin('memory_embedding_progress as p', (join) =>
        join.onRef('p.scope_id', '=', 's.id').on('p.model', '=', p.model),
      )
      .select(['s.id', 's.version', (eb) => eb.fn.coalesce('p.version', eb.lit(0)).as('done')])
      .where((eb) => eb('s.version', '>', eb.fn.coalesce('p.version', eb.lit(0))))
      .orderBy('s.id')
      .limit(p.limit),
  );
  const pendingMemories = prepareQuery(
    (p: { scopeId: string; model: string; after: number; through: number; limit: number }) =>
      db
        .selectFrom('memories as m')
        .leftJoin('memory_embeddings as e', (join) =>
          join.onRef('e.memory_id', '=', 'm.id').on('e.model', '=', p.model),
        )
        .select(['m.id', 'm.version', 'm.content'])
        .where('m.scope_id', '=', p.scopeId)
        .where('m.version', '>', p.after)
        .where('m.version', '<=', p.through)
        .where('m.deleted_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb('e.memory_version', 'is', null),
            eb('e.memory_version', '<', eb.ref('m.version')),
          ]),
        )
        .orderBy('m.version')
        .limit(p.limit),
  );
  const changedSince = prepareQuery((p: { scopeId: string; model: string; version: number }) =>
    db
      .selectFrom('memories as m')
      .leftJoin('memory_embeddings as e', (join) =>
        join
          .onRef('e.memory_id', '=', 'm.id')
          .on('e.model', '=', p.model)
          .onRef('e.memory_version', '=', 'm.version'),
      )
      .select(['m.id', 'm.version', 'm.category', 'm.deleted_at', 'e.vector'])
      .where('m.scope_id', '=', p.scopeId)
      .where('m.version', '>', p.version),
  );
  const dropVectors = prepareQuery((p: { memoryId: string }) =>
    db.deleteFrom('memory_embeddings').where('memory_id', '=', p.memoryId),
  );
  const carryVectors = prepareQuery((p: { memoryId: string; from: number; to: number }) =>
    db
      .updateTable('memory_embeddings')
      .set({ memory_version: p.to })
      .where('memory_id', '=', p.memoryId)
      .where('memory_version', '=', p.from),
  );
  const advance = prepareQuery((p: { scopeId: string; model: string; version: number }) =>
    db
      .insertInto('memory_embedding_progress')
      .values({ scope_id: p.scopeId, model: p.model, version: p.version })
      .onConflict((oc) =>
        oc
          .columns(['scope_id', 'model'])
          .doUpdateSet({ version: (eb) => eb.ref('excluded.version') })
          .where('memory_embedding_progress.version', '<', (eb) => eb.ref('excluded.version')),
      ),
  );

  return {
    /** Stores with changes that may lack vectors of `model`, in id order. */
    pendingScopes: (runner: QueryRunner, model: string, limit: number): Promise<PendingScope[]> =>
      pendingScopes.rows(runner, { model, limit }),

    /**
     * The store's active memories changed in (`after`, `through`] that lack a current vector of
     * `model`, in change order.
     */
    pendingMemories: (
      runner: QueryRunner,
      query: { scopeId: string; model: string; after: number; through: number; limit: number },
    ): Promise<PendingMemory[]> => pendingMemories.rows(runner, query),

    /**
     * Takes the stores' counter rows for the rest of the transaction, in id order (every process
     * takes them in one order: none can deadlock another): a memory write of these stores waits,
     * so what is read next about their memories stays true until the commit.
     */
    async lockScopes(trx: Kysely<Tables>, scopeIds: readonly string[]): Promise<void> {
      // SQLite serializes writers with BEGIN IMMEDIATE and has no FOR UPDATE.
      if (!rowLocks || scopeIds.length === 0) return;
      await trx
        .selectFrom('scopes')
        .select('id')
        .where('id', 'in', [...scopeIds])
        .orderBy('id')
        .forUpdate()
        .execute();
    },

    /**
     * Writes vectors computed from memories as they were at their versions: only for a memory
     * still active at that version (a vector of content since changed or deleted is of no use),
     * and never over a vector of a later version. Run under lockScopes of their stores.
     */
    async writeVectors(
      trx: Kysely<Tables>,
      model: string,
      vectors: readonly ComputedVector[],
    ): Promise<number> {
      if (vectors.length === 0) return 0;
      const current = await trx
        .selectFrom('memories')
        .select(['id', 'version'])
        .where(
          'id',
          'in',
          vectors.map((v) => v.memoryId),
        )
        .where('deleted_at', 'is', null)
        .execute();
      const versions = new Map(current.map((row) => [row.id, Number(row.version)]));
      const fresh = vectors.filter((v) => versions.get(v.memoryId) === v.version);
      if (fresh.length === 0) return 0;
      await trx
        .insertInto('memory_embeddings')
        .values(
          fresh.map((v) => ({
            memory_id: v.memoryId,
            model,
            memory_version: v.version,
            vector: v.vector,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['memory_id', 'model'])
            .doUpdateSet({
              memory_version: (eb) => eb.ref('excluded.memory_version'),
              vector: (eb) => eb.ref('excluded.vector'),
            })
            .where('memory_embeddings.memory_version', '<', (eb) =>
              eb.ref('excluded.memory_version'),
            ),
        )
        .execute();
      return fresh.length;
    },

    /** Records that every active memory of the store up to `version` has its vector. */
    async advanceProgress(
      trx: QueryRunner,
      scopeId: string,
      model: string,
      version: number,
    ): Promise<void> {
      await advance.execute(trx, { scopeId, model, version });
    },

    /**
     * The store's memories changed after `version` (all of them from 0), tombstones included,
     * each with its current vector of `model` if it has one.
     */
    async changedSince(
      runner: QueryRunner,
      scopeId: string,
      model: string,
      version: number,
    ): Promise<ChangedMemory[]> {
      return changedSince.rows(runner, { scopeId, model, version });
    },

    /** The memories of the store among `ids` that are active, as an answer shows them. */
    async activeAmong(
      runner: QueryRunner,
      scopeId: string,
      ids: readonly string[],
    ): Promise<Omit<ShownMemory, 'deleted_at'>[]> {
      if (ids.length === 0) return [];
      // Compiled per call (the list's length varies), run where the caller reads.
      const query = db
        .selectFrom('memories')
        .select(['id', 'content', 'category', 'created_at', 'updated_at'])
        .where('scope_id', '=', scopeId)
        .where('deleted_at', 'is', null)
        .where('id', 'in', [...ids])
        .compile();
      const { rows } = await runner.executeQuery(query);
      return rows.map((row) => ({
        ...row,
        created_at: Number(row.created_at),
        updated_at: Number(row.updated_at),
      }));
    },

    /** A deleted memory's vectors go in its delete's transaction: no model ranks it again. */
    async dropVectors(trx: QueryRunner, memoryId: string): Promise<void> {
      await dropVectors.execute(trx, { memoryId });
    },

    /**
     * A change that keeps the content (a category) keeps the memory's current vectors current:
     * they move from version `from` to `to` in the change's transaction, and nothing is
     * embedded again.
     */
    async carryVectors(trx: QueryRunner, memoryId: string, from: number, to: number) {
      await carryVectors.execute(trx, { memoryId, from, to });
    },
  };
}

export type MemoryEmbeddingsRepository = ReturnType<typeof createMemoryEmbeddingsRepository>;
