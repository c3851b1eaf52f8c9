import { sql } from 'kysely';
import { isStoreUnavailable } from '../db/availability.ts';
import type { Database } from '../db/database.ts';
import { prepareQuery } from '../db/prepared-query.ts';
import { newRowId } from '../db/row-id.ts';
import { indexTerms } from '../platform/search-analyzer.ts';
import type { CursorScope } from './cursor.ts';
import type {
  AddResult,
  AddWrite,
  AuditedAct,
  MemoryWrites,
  UpdateResult,
  WrittenMemory,
} from './memory-writes.ts';

/**
 * Adds of one store sent in one call at most. The call holds the store's lock for all of them
 * and runs under the statement timeout, and a failed call runs its adds again one at a time:
 * a bound keeps each of those short. At 100 the round trip and the commit are shared so widely
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
  terms: string[];
  audits: (object | null)[];
};

interface Queued {
  readonly write: AddWrite;
  readonly resolve: (result: AddResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The writes as one call each of the functions of migration 2026-11-25T02_memory_writes, each
 * the one statement of its transaction: the store's lock is taken inside the call and held for
 * that round trip and the commit. (The transaction is explicit, BEGIN a round trip before the
 * lock, so that a connection cut before the COMMIT leaves nothing written: a statement run on
 * its own would commit on the server whatever became of its client.) Adds to one store are
 * batched: while a call for the store is in flight, the adds that come queue, and the next
 * call takes them all (the first add of an idle store goes at once). A call aborted for a
 * conflict runs again (Database.write): an aborted transaction applied nothing.
 */
export function createPostgresWrites(deps: { readonly database: Database }): MemoryWrites {
  const { database } = deps;
  const { db } = database;

  const addMemories = prepareQuery((p: AddParams) =>
    db
      .selectFrom(
        sql<WrittenMemory & { created: boolean }>`mnemo_add_memories(${p.orgId}, ${p.kind},
          ${p.ownerId}, cast(${p.ids} as text[]), cast(${p.contributors} as text[]),
          cast(${p.contents} as text[]), cast(${p.foldKeys} as text[]),
          cast(${p.categories} as text[]), cast(${p.ats} as bigint[]),
          cast(${p.terms} as text[]), cast(${p.audits} as jsonb[]))`.as('added'),
      )
      .select(['created', 'id', 'content', 'category', 'created_at', 'updated_at']),
  );
  type UpdateParams = CursorScope & {
    memoryId: string;
    content: string | null;
    foldKey: string | null;
    terms: string | null;
    setCategory: boolean;
    category: string | null;
    expectedUpdatedAt: number | null;
    at: number;
    audit: object | null;
  };
  const updateMemory = prepareQuery((p: UpdateParams) =>
    db
      .selectFrom(
        sql<
          WrittenMemory & { outcome: UpdateResult['outcome']; new_content: boolean | null }
        >`mnemo_update_memory(${p.orgId}, ${p.kind}, ${p.ownerId}, ${p.memoryId},
          ${p.content}, ${p.foldKey}, ${p.terms}, ${p.setCategory}, ${p.category},
          cast(${p.expectedUpdatedAt} as bigint), cast(${p.at} as bigint),
          cast(${p.audit} as jsonb))`.as('updated'),
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
  async function addAll(writes: readonly AddWrite[]): Promise<AddResult[]> {
    const [first] = writes;
    if (!first) return [];
    const { orgId, kind, ownerId } = first.scope;
    const rows = await database.write((trx) =>
      addMemories.rows(trx, {
        orgId,
        kind,
        ownerId,
        ids: writes.map((w) => w.id),
        contributors: writes.map((w) => w.contributorId),
        contents: writes.map((w) => w.content),
        foldKeys: writes.map((w) => w.foldKey),
        categories: writes.map((w) => w.category),
        ats: writes.map((w) => w.at),
        terms: writes.map((w) => indexTerms(w.content)),
        audits: writes.map((w) => auditRow(w.audit) ?? null),
      }),
    );
    if (rows.length !== writes.length) {
      throw new Error(`mnemo_add_memories answered ${rows.length} rows for ${writes.length} adds`);
    }
    return rows.map(({ created, id, content, category, created_at, updated_at }) => ({
      created,
      memory: { id, content, category, created_at, updated_at },
    }));
  }

  /**
   * Settles every add of the batch. A failure the store as a whole answers (unreachable, too
   * slow) is every add's own; any other may be one add's (a contributor gone, say): each runs
   * again alone, in order, so that the others are written and each caller gets its own answer.
   */
  async function settle(batch: readonly Queued[]): Promise<void> {
    try {
      const results = await addAll(batch.map((queued) => queued.write));
      for (const [i, queued] of batch.entries()) queued.resolve(results[i] as AddResult);
    } catch (error) {
      if (batch.length === 1 || isStoreUnavailable(error)) {
        for (const queued of batch) queued.reject(error);
        return;
      }
      for (const queued of batch) {
        try {
          const [result] = await addAll([queued.write]);
          queued.resolve(result as AddResult);
        } catch (alone) {
          queued.reject(alone);
        }
      }
    }
  }

  /** Per store with a call in flight, the adds waiting for the next one. */
  const waiting = new Map<string, Queued[]>();

  /** Runs calls for the store until no add waits, then leaves it idle. */
  async function drain(store: string, batch: Queued[]): Promise<void> {
    for (let next = batch; next.length > 0; ) {
      await settle(next);
      next = waiting.get(store)?.splice(0, MAX_BATCH) ?? [];
    }
    waiting.delete(store);
  }

  return {
    add: (write) =>
      new Promise<AddResult>((resolve, reject) => {
        const store = JSON.stringify([write.scope.orgId, write.scope.kind, write.scope.ownerId]);
        const queued = { write, resolve, reject };
        const queue = waiting.get(store);
        if (queue) {
          queue.push(queued);
          return;
        }
        waiting.set(store, []);
        void drain(store, [queued]);
      }),

    async update(write) {
      const { orgId, kind, ownerId } = write.scope;
      const row = await database.write((trx) =>
        updateMemory.first(trx, {
          orgId,
          kind,
          ownerId,
          memoryId: write.memoryId,
          content: write.content?.text ?? null,
          foldKey: write.content?.foldKey ?? null,
          terms: write.content ? indexTerms(write.content.text) : null,
          setCategory: write.category !== undefined,
          category: write.category?.value ?? null,
          expectedUpdatedAt: write.expectedUpdatedAt ?? null,
          at: write.at,
          audit: auditRow(write.audit) ?? null,
        }),
      );
      if (!row || row.outcome === 'gone') return { outcome: 'gone' };
      const { id, content, category, created_at, updated_at } = row;
      const memory = { id, content, category, created_at, updated_at };
      if (row.outcome === 'conflict') return { outcome: 'conflict', memory };
      return { outcome: 'updated', memory, newContent: row.new_content === true };
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
