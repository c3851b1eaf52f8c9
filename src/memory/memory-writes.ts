import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { MemoryRow, Tables } from '../db/tables.ts';
import { openStoreOutbox } from '../webhooks/index.ts';
import type { CursorScope } from './cursor.ts';
import type { MemoryRepository, ScopeState, WritableMemory } from './memory.repository.ts';
import type { Category } from './memory.schemas.ts';
import type { MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { toMemoryItem } from './memory-item.ts';

/**
 * The three writes of the memory API as the store carries them out, every rule of docs/design.md
 * §3.1 and §3.2 included: the fold, the store's change counter, tombstones, vectors kept or
 * dropped, the audit row. The service checks the request and whom it may reach; a write decides
 * from the state it finds under the store's lock. Two implementations: statement by statement
 * in one transaction (this file; SQLite, where a write costs no round trip), and one
 * server-side function call per write (memory-writes.postgres.ts), which holds the store's lock
 * for one round trip and the commit. The suite runs on both engines and holds them to the same
 * answers.
 */
export interface MemoryWrites {
  add(write: AddWrite): Promise<AddResult>;
  /**
   * Adds to one store in one transaction, in order, each as `add` would do it (folding into the
   * store and into the writes before it): an import.
   */
  addMany(writes: readonly AddWrite[]): Promise<AddResult[]>;
  update(write: UpdateWrite): Promise<UpdateResult>;
  remove(write: RemoveWrite): Promise<void>;
}

/** An act done for another member: recorded in the audit log inside the write. */
export interface AuditedAct {
  readonly orgId: string;
  readonly actorId: string;
  readonly targetId: string;
}

export interface AddWrite {
  readonly scope: CursorScope;
  /** The new memory's id, used when it does not fold. */
  readonly id: string;
  readonly contributorId: string;
  readonly content: string;
  readonly foldKey: string;
  readonly category: Category | null;
  /** Milliseconds: the new memory's timestamps, and the earliest `updatedAt` of a fold. */
  readonly at: number;
  /** Milliseconds: the new memory's `createdAt` when not `at` (an import keeps the original's). */
  readonly createdAt?: number | undefined;
  readonly audit: AuditedAct | undefined;
}

/** A memory as stored, what an answer shows of it. */
export type WrittenMemory = Pick<
  MemoryRow,
  'id' | 'content' | 'category' | 'created_at' | 'updated_at'
>;

export type AddResult =
  | { readonly created: true; readonly memory: WrittenMemory }
  /** Folded into the active memory `memory` of the same content. */
  | { readonly created: false; readonly memory: WrittenMemory };

export interface UpdateWrite {
  readonly scope: CursorScope;
  readonly memoryId: string;
  /** The new content and its fold key; undefined keeps them. */
  readonly content: { readonly text: string; readonly foldKey: string } | undefined;
  /** The new category (null: none); undefined keeps it. */
  readonly category: { readonly value: Category | null } | undefined;
  /** Optimistic concurrency: written only if the stored `updated_at` still equals it. */
  readonly expectedUpdatedAt: number | undefined;
  readonly at: number;
  readonly audit: AuditedAct | undefined;
}

export type UpdateResult =
  | { readonly outcome: 'updated'; readonly memory: WrittenMemory; readonly newContent: boolean }
  /** Deleted, or gone, since the service found it. */
  | { readonly outcome: 'gone' }
  /** Changed since `expectedUpdatedAt`: the memory as it is. */
  | { readonly outcome: 'conflict'; readonly memory: WrittenMemory };

export interface RemoveWrite {
  readonly scope: CursorScope;
  readonly memoryId: string;
  readonly at: number;
  readonly audit: AuditedAct | undefined;
}

/**
 * The one store every write of `writes` goes to (undefined when there are none): `addMany` takes
 * one store's lock for all of them.
 */
export function storeOfAll(
  writes: readonly { readonly scope: CursorScope }[],
): CursorScope | undefined {
  const [first] = writes;
  if (!first) return undefined;
  const key = (scope: CursorScope) => `${scope.orgId} ${scope.kind} ${scope.ownerId}`;
  if (writes.some((w) => key(w.scope) !== key(first.scope))) {
    throw new Error('addMany: every write goes to one store');
  }
  return first.scope;
}

/** `updated_at` strictly increases with every change, even two within one millisecond. */
export const nextUpdatedAt = (at: number, previous: number) => Math.max(at, previous + 1);

/** Audit actions of the memory API's writes. */
type WriteAction = 'add' | 'update' | 'delete';

async function auditIn(
  trx: Kysely<Tables>,
  act: AuditedAct | undefined,
  action: WriteAction,
  memoryId: string,
) {
  if (act) await recordAudit(trx, { ...act, action, memoryId });
}

/** The memory an add that folds into nothing creates, as its `version` of store `scopeId`. */
const newMemory = (write: AddWrite, scopeId: string, version: number): MemoryRow => ({
  id: write.id,
  scope_id: scopeId,
  contributor_id: write.contributorId,
  content: write.content,
  fold_key: write.foldKey,
  category: write.category,
  created_at: write.createdAt ?? write.at,
  updated_at: write.at,
  version,
  deleted_at: null,
});

/**
 * What adding `writes` one after the other does to a store that holds `stored` (its active
 * memories by fold key), worked out before anything is written: the answers, in order; the new
 * memories and the stored ones a fold gives a category, as they end; and how many numbers of
 * the store's counter they take. The plan numbers its changes from 1, in the order they happen.
 */
export function planAdds(
  scopeId: string,
  writes: readonly AddWrite[],
  stored: ReadonlyMap<string, WritableMemory>,
) {
  const results: AddResult[] = [];
  /** What each fold key folds into now: a stored memory, or one of the batch's. */
  const current = new Map<string, { row: MemoryRow | WritableMemory; created: boolean }>();
  const changedFrom = new Map<string, number>();
  let versions = 0;
  for (const write of writes) {
    let into = current.get(write.foldKey);
    const found = into ? undefined : stored.get(write.foldKey);
    if (found) {
      into = { row: found, created: false };
      current.set(write.foldKey, into);
    }
    if (!into) {
      versions += 1;
      const row = newMemory(write, scopeId, versions);
      current.set(write.foldKey, { row, created: true });
      results.push({ created: true, memory: row });
      continue;
    }
    // A fold that brings a category to a memory without one is a change; otherwise none. The
    // row is replaced, not changed: the answers given before keep what they showed.
    if (into.row.category === null && write.category !== null) {
      if (!into.created && !changedFrom.has(into.row.id)) {
        changedFrom.set(into.row.id, into.row.version);
      }
      versions += 1;
      into.row = {
        ...into.row,
        category: write.category,
        version: versions,
        updated_at: nextUpdatedAt(write.at, into.row.updated_at),
      };
    }
    results.push({ created: false, memory: into.row });
  }
  const ending = [...current.values()];
  return {
    results,
    versions,
    created: ending.filter((m) => m.created).map((m) => m.row as MemoryRow),
    changed: ending
      .filter((m) => !m.created && changedFrom.has(m.row.id))
      .map((m) => ({ row: m.row, from: changedFrom.get(m.row.id) ?? m.row.version })),
  };
}

/**
 * `writes`, all to store `scope`, in transaction `trx` as a plan (`planAdds`) carried out in a
 * few statements whatever their number: the store's lock, its memories of the writes' fold keys
 * read at once, the counter advanced once, the new memories inserted many a statement. An
 * import on either engine: each write answered as an add would answer it.
 */
export async function addPlanned(
  trx: Kysely<Tables>,
  deps: {
    readonly repository: MemoryRepository;
    readonly embeddings: MemoryEmbeddingsRepository;
  },
  scope: CursorScope,
  writes: readonly AddWrite[],
): Promise<AddResult[]> {
  const { repository: repo, embeddings } = deps;
  const state = await repo.lockScope(trx, scope);
  const keys = [...new Set(writes.map((write) => write.foldKey))];
  const stored = await repo.findActiveByFoldKeys(trx, state.id, keys);
  const plan = planAdds(state.id, writes, stored);
  if (plan.versions > 0) {
    // Numbers in the plan count from 1: the counter gives where they start.
    const offset = (await repo.bumpScopeBy(trx, state.id, plan.versions)) - 1;
    await repo.insertMemories(
      trx,
      plan.created.map((row) => ({ ...row, version: row.version + offset })),
    );
    for (const { row, from } of plan.changed) {
      const version = row.version + offset;
      await repo.writeMemory(trx, { ...row, version });
      await embeddings.carryVectors(trx, row.id, from, version);
    }
  }
  for (const [i, write] of writes.entries()) {
    const result = plan.results[i];
    if (result) await auditIn(trx, write.audit, 'add', result.memory.id);
  }
  // Webhooks: each item an event, in order (docs/design.md §3.9).
  const outbox = await openStoreOutbox(trx, scope);
  for (const [i, write] of writes.entries()) {
    const result = plan.results[i];
    if (outbox && result) await outbox.record(addEvent(result, write.at));
  }
  return plan.results;
}

/** An add's webhook event: the memory created, or the one it folded into as it now is. */
const addEvent = (result: AddResult, at: number) => ({
  type: result.created ? ('memory.created' as const) : ('memory.folded' as const),
  data: { memory: toMemoryItem(result.memory) },
  memoryId: result.memory.id,
  at,
});

/**
 * The writes as statements in one transaction of `database.write`, the store's lock first; each
 * records its webhook event in the same transaction (migration 2026-12-01T00_webhooks does so
 * in PostgreSQL's functions).
 */
export function createStatementWrites(deps: {
  readonly database: Database;
  readonly repository: MemoryRepository;
  readonly embeddings: MemoryEmbeddingsRepository;
}): MemoryWrites {
  const { database, repository: repo, embeddings } = deps;

  /** `write` to its store, whose lock the transaction holds (`state`). */
  async function addIn(
    trx: Kysely<Tables>,
    state: ScopeState,
    write: AddWrite,
  ): Promise<AddResult> {
    const existing = await repo.findActiveByFoldKey(trx, state.id, write.foldKey);
    if (existing) {
      let memory: WrittenMemory = existing;
      // A fold that brings a category to a memory without one is a change; otherwise none.
      if (existing.category === null && write.category !== null) {
        const version = await repo.bumpScope(trx, state.id);
        const changed = {
          ...existing,
          category: write.category,
          version,
          updated_at: nextUpdatedAt(write.at, existing.updated_at),
        };
        await repo.writeMemory(trx, changed);
        await embeddings.carryVectors(trx, existing.id, existing.version, version);
        memory = changed;
      }
      await auditIn(trx, write.audit, 'add', existing.id);
      return { created: false, memory };
    }
    const version = await repo.bumpScope(trx, state.id);
    const row = newMemory(write, state.id, version);
    await repo.insertMemory(trx, row);
    await auditIn(trx, write.audit, 'add', row.id);
    return { created: true, memory: row };
  }

  return {
    add: (write) =>
      database.write(async (trx) => {
        const result = await addIn(trx, await repo.lockScope(trx, write.scope), write);
        await (await openStoreOutbox(trx, write.scope))?.record(addEvent(result, write.at));
        return result;
      }),

    async addMany(writes) {
      const scope = storeOfAll(writes);
      if (!scope) return [];
      return database.write((trx) =>
        addPlanned(trx, { repository: repo, embeddings }, scope, writes),
      );
    },

    update: (write) =>
      database.write(async (trx): Promise<UpdateResult> => {
        const state = await repo.lockScope(trx, write.scope);
        // Read under the store's lock: no write of this store can interleave from here.
        const current = await repo.findById(trx, write.memoryId);
        if (!current || current.deleted_at !== null) return { outcome: 'gone' };
        if (write.expectedUpdatedAt !== undefined && current.updated_at !== write.expectedUpdatedAt)
          return { outcome: 'conflict', memory: current };
        const version = await repo.bumpScope(trx, state.id);
        const next = {
          ...current,
          ...(write.content && { content: write.content.text, fold_key: write.content.foldKey }),
          ...(write.category && { category: write.category.value }),
          version,
          updated_at: nextUpdatedAt(write.at, current.updated_at),
        };
        await repo.writeMemory(trx, next);
        // New content makes its vectors stale: gone until the indexer embeds it again. The
        // same content keeps them, current at the new version.
        const newContent = next.content !== current.content;
        if (newContent) await embeddings.dropVectors(trx, current.id);
        else await embeddings.carryVectors(trx, current.id, current.version, version);
        await auditIn(trx, write.audit, 'update', current.id);
        await (await openStoreOutbox(trx, write.scope))?.record({
          type: 'memory.updated',
          data: { memory: toMemoryItem(next) },
          memoryId: next.id,
          at: write.at,
        });
        return { outcome: 'updated', memory: next, newContent };
      }),

    remove: (write) =>
      database.write(async (trx) => {
        const state = await repo.lockScope(trx, write.scope);
        const current = await repo.findById(trx, write.memoryId);
        // Deleting a deleted memory changes nothing, but done for another member it is an
        // act all the same, and the audit log records every one.
        if (current && current.deleted_at === null) {
          const version = await repo.bumpScope(trx, state.id);
          const at = nextUpdatedAt(write.at, current.updated_at);
          // A tombstone keeps only what sync needs: the content is gone with the memory.
          await repo.writeMemory(trx, {
            ...current,
            content: '',
            fold_key: '',
            category: null,
            version,
            updated_at: at,
            deleted_at: at,
          });
          await embeddings.dropVectors(trx, current.id);
          await (await openStoreOutbox(trx, write.scope))?.record({
            type: 'memory.deleted',
            data: { memory: { id: current.id } },
            memoryId: current.id,
            at: write.at,
          });
        }
        await auditIn(trx, write.audit, 'delete', write.memoryId);
      }),
  };
}
