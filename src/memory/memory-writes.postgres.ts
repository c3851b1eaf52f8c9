import { sql } from 'kysely';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import { newRowId } from '../db/row-id.ts';
import { indexTerms } from '../platform/search-analyzer.ts';
import type { CursorScope } from './cursor.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import {
  type AddResult,
  type AddWrite,
  type AuditedAct,
  addPlanned,
  type MemoryWrites,
  storeOfAll,
  type UpdateResult,
  type UpdateWrite,
  type WrittenMemory,
} from './memory-writes.ts';

/**
 * Writes of one kind to one store sent in one call at most. The call holds the store's lock for
 * all of them and runs under the statement timeout, and a failed call runs its writes again one
 * at a time: a bound keeps each of those short. At 100 the round trip and the commit are shared so widely
 * that a bigger batch adds little.
 */
const MAX_BATCH = 100;

/** An audit row as the functions take it: as recordAudit writes it, made at the write. */
const auditRow = (act: AuditedAct | undefined) => act && { id: newRowId(), ...act, at: Date.now() };

/** The adds of one call, one array per column (the function unnests them side by side). */
type AddParams = CursorScope & {
  ids: string[];
  contributors: string[];
  contents: string[];
  foldKeys: string[];
  categories: (string | null)[];
  ats: number[];
  createdAts: number[];
  terms: string[];
  audits: (object | null)[];
};

interface Queued<W, R> {
  readonly write: W;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes of one kind carried to each store in batches: while a call for a store is in flight,
 * the writes that come for it queue, and the next call takes them all, in order, up to
 * MAX_BATCH (the first write to an idle store goes at once: no timer, no added wait). `call`
 * (`name`, for its errors) answers each write of a batch, in order. A failure the store as a
 * whole answers (unreachable, too slow) is every write's own; any other may be one write's (a
 * contributor gone, say): each write runs again alone, in order, so that the others are done
 * and every caller gets its own answer. (During an outage, a batch of 100 run one by one would
 * wait out 100 timeouts.)
 */
function createStoreBatches<W extends { readonly scope: CursorScope }, R>(
  name: string,
  call: (scope: CursorScope, writes: readonly W[]) => Promise<R[]>,
) {
  /** Per store with a call in flight, the writes waiting for the next one. */
  const waiting = new Map<string, Queued<W, R>[]>();

  async function callFor(scope: CursorScope, writes: readonly W[]): Promise<R[]> {
    const results = await call(scope, writes);
    if (results.length !== writes.length) {
      throw new Error(`${name} answered ${results.length} rows for ${writes.length} writes`);
    }
    return results;
  }

  /** Answers every write of `batch`; returns the error when it found the store unavailable. */
  async function settle(scope: CursorScope, batch: readonly Queued<W, R>[]): Promise<unknown> {
    try {
      const results = await callFor(
        scope,
        batch.map((queued) => queued.write),
      );
      for (const [i, queued] of batch.entries()) queued.resolve(results[i] as R);
      return undefined;
    } catch (error) {
      if (batch.length === 1 || isStoreUnavailable(error)) {
        for (const queued of batch) queued.reject(error);
        return isStoreUnavailable(error) ? error : undefined;
      }
      for (const queued of batch) {
        try {
          const [result] = await callFor(scope, [queued.write]);
          queued.resolve(result as R);
        } catch (alone) {
          queued.reject(alone);
        }
      }
      return undefined;
    }
  }

  /**
   * Runs calls for the store until no write waits, then leaves it idle. When a call finds the
   * store unavailable, the writes waiting for the store fail with it at once: each batch would
   * otherwise wait out its own timeout after this one's.
   */
  async function drain(store: string, scope: CursorScope, batch: Queued<W, R>[]): Promise<void> {
    for (let next = batch; next.length > 0; ) {
      const unavailable = await settle(scope, next);
      const queue = waiting.get(store) ?? [];
      if (unavailable !== undefined) {
        for (const queued of queue.splice(0)) queued.reject(unavailable);
      }
      next = queue.splice(0, MAX_BATCH);
    }
    waiting.delete(store);
  }

  return {
    write: (write: W) =>
      new Promise<R>((resolve, reject) => {
        const { orgId, kind, ownerId } = write.scope;
        const store = JSON.stringify([orgId, kind, ownerId]);
        const queued = { write, resolve, reject };
        const queue = waiting.get(store);
        if (queue) {
          queue.push(queued);
          return;
        }
        waiting.set(store, []);
        void drain(store, { orgId, kind, ownerId }, [queued]);
      }),
  };
}

/**
 * The writes as one call each of the functions of migration 2026-11-25T02_memory_writes, each
 * the one statement of its transaction: the store's lock is taken inside the call and held for
 * that round trip and the commit. (The transaction is explicit, BEGIN a round trip before the
 * lock, so that a connection cut before the COMMIT leaves nothing written: a statement run on
 * its own would commit on the server whatever became of its client.) Adds, and updates, to one
 * store are batched (createStoreBatches; updates by migration 2026-11-25T03). A call aborted
 * for a conflict runs again (Database.write): an aborted transaction applied nothing. An import
 * (`addMany`) is planned as on SQLite (`addPlanned`), its statements a few whatever its size.
 */
export function createPostgresWrites(deps: {
  readonly database: Database;
  readonly repository: MemoryRepository;
  readonly embeddings: MemoryEmbeddingsRepository;
}): MemoryWrites {
  const { database } = deps;
  const { db } = database;

  const addMemories = prepareQuery((p: AddParams) =>
    db
      .selectFrom(
        sql<WrittenMemory & { created: boolean }>`mnemo_add_memories(${p.orgId}, ${p.kind},
          ${p.ownerId}, cast(${p.ids} as text[]), cast(${p.contributors} as text[]),
          cast(${p.contents} as text[]), cast(${p.foldKeys} as text[]),
          cast(${p.categories} as text[]), cast(${p.ats} as bigint[]),
          cast(${p.createdAts} as bigint[]), cast(${p.terms} as text[]),
          cast(${p.audits} as jsonb[]))`.as('added'),
      )
      .select(['created', 'id', 'content', 'category', 'created_at', 'updated_at']),
  );
  type UpdateParams = CursorScope & {
    memoryIds: string[];
    contents: (string | null)[];
    foldKeys: (string | null)[];
    terms: (string | null)[];
    setCategories: boolean[];
    categories: (string | null)[];
    expectedUpdatedAts: (number | null)[];
    ats: number[];
    audits: (object | null)[];
  };
  const updateMemories = prepareQuery((p: UpdateParams) =>
    db
      .selectFrom(
        sql<
          WrittenMemory & { outcome: UpdateResult['outcome']; new_content: boolean | null }
        >`mnemo_update_memories(${p.orgId}, ${p.kind}, ${p.ownerId},
          cast(${p.memoryIds} as text[]), cast(${p.contents} as text[]),
          cast(${p.foldKeys} as text[]), cast(${p.terms} as text[]),
          cast(${p.setCategories} as boolean[]), cast(${p.categories} as text[]),
          cast(${p.expectedUpdatedAts} as bigint[]), cast(${p.ats} as bigint[]),
          cast(${p.audits} as jsonb[]))`.as('updated'),
      )
      .select(['outcome', 'id', 'content', 'category', 'created_at', 'updated_at', 'new_content']),
  );
  type RemoveParams = CursorScope & { memoryId: string; at: number; audit: object | null };
  const removeMemory = prepareQuery((p: RemoveParams) =>
    db
      .selectFrom(
        sql<{ removed: boolean }>`mnemo_remove_memory(${p.orgId}, ${p.kind}, ${p.ownerId},
          ${p.memoryId}, cast(${p.at} as bigint), cast(${p.audit} as jsonb))`.as('removed'),
      )
      .select('removed'),
  );

  /** One call for adds of one store: one answer each, in order, or the call's error. */
  async function addAll(scope: CursorScope, writes: readonly AddWrite[]): Promise<AddResult[]> {
    const rows = await database.write((trx) =>
      addMemories.rows(trx, {
        ...scope,
        ids: writes.map((w) => w.id),
        contributors: writes.map((w) => w.contributorId),
        contents: writes.map((w) => w.content),
        foldKeys: writes.map((w) => w.foldKey),
        categories: writes.map((w) => w.category),
        ats: writes.map((w) => w.at),
        createdAts: writes.map((w) => w.createdAt ?? w.at),
        terms: writes.map((w) => indexTerms(w.content)),
        audits: writes.map((w) => auditRow(w.audit) ?? null),
      }),
    );
    return rows.map(({ created, id, content, category, created_at, updated_at }) => ({
      created,
      memory: { id, content, category, created_at, updated_at },
    }));
  }

  /** One call for updates of one store: one answer each, in order, or the call's error. */
  async function updateAll(
    scope: CursorScope,
    writes: readonly UpdateWrite[],
  ): Promise<UpdateResult[]> {
    const rows = await database.write((trx) =>
      updateMemories.rows(trx, {
        ...scope,
        memoryIds: writes.map((w) => w.memoryId),
        contents: writes.map((w) => w.content?.text ?? null),
        foldKeys: writes.map((w) => w.content?.foldKey ?? null),
        terms: writes.map((w) => (w.content ? indexTerms(w.content.text) : null)),
        setCategories: writes.map((w) => w.category !== undefined),
        categories: writes.map((w) => w.category?.value ?? null),
        expectedUpdatedAts: writes.map((w) => w.expectedUpdatedAt ?? null),
        ats: writes.map((w) => w.at),
        audits: writes.map((w) => auditRow(w.audit) ?? null),
      }),
    );
    return rows.map((row): UpdateResult => {
      if (row.outcome === 'gone') return { outcome: 'gone' };
      const { id, content, category, created_at, updated_at } = row;
      const memory = { id, content, category, created_at, updated_at };
      if (row.outcome === 'conflict') return { outcome: 'conflict', memory };
      return { outcome: 'updated', memory, newContent: row.new_content === true };
    });
  }

  const adds = createStoreBatches('mnemo_add_memories', addAll);
  const updates = createStoreBatches('mnemo_update_memories', updateAll);

  return {
    add: adds.write,
    update: updates.write,

    // An import: one transaction, planned (its statements do not grow with it), not batched
    // with other adds.
    async addMany(writes) {
      const scope = storeOfAll(writes);
      if (!scope) return [];
      return database.write((trx) => addPlanned(trx, deps, scope, writes));
    },

    async remove(write) {
      const { orgId, kind, ownerId } = write.scope;
      await database.write((trx) =>
        removeMemory.execute(trx, {
          orgId,
          kind,
          ownerId,
          memoryId: write.memoryId,
          at: write.at,
          audit: auditRow(write.audit) ?? null,
        }),
      );
    },
  };
}
