import { recordAudit } from '../audit/index.ts';
import type { Database } from '../db/database.ts';
import type { ProjectAccess } from '../db/tables.ts';
import type { JsonText } from '../platform/json-text.ts';
import { parseUuid } from '../platform/uuid.ts';
import type { Caller } from '../tenancy/index.ts';
import type { CursorCodec } from './cursor.ts';
import type { ListCache } from './list-cache.ts';
import { memoryNotFound } from './memory.errors.ts';
import type { MemoryRepository } from './memory.repository.ts';
import type { ListResponse } from './memory.schemas.ts';
import type { MemoryTargets, Target } from './memory.targets.ts';
import type { MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import type { MemorySearch } from './memory-search.ts';
import type { MemoryWrites } from './memory-writes.ts';
import type { OwnStoreReads } from './own-store-reads.ts';
import type { QueryEmbedder } from './query-embedding.ts';
import type { StoreChanges } from './store-changes.ts';
import type { VectorIndex } from './vector-index.ts';

/*
 * What the memory service's reads, writes and searches share (memory.service.ts composes them):
 * what they are built of, and the helpers more than one of them uses.
 */

export interface MemoryServiceDeps {
  readonly database: Database;
  readonly repository: MemoryRepository;
  /** Reads of one's own store in the caller's statement (own-store-reads.ts). */
  readonly ownReads: OwnStoreReads;
  /** Every write but an erase: announced to the change streams by whoever made it. */
  readonly writes: MemoryWrites;
  /** Told of the stores an erase changed (store-changes.ts). */
  readonly changes?: Pick<StoreChanges, 'changed'> | undefined;
  /** Lexical search: on SQLite in worker threads (memory-search.ts). */
  readonly search: MemorySearch;
  /** Vectors of memories: dropped with a deleted memory whether or not search uses them. */
  readonly embeddings: MemoryEmbeddingsRepository;
  /** Semantic search, when an embedding model is configured; else search is lexical. */
  readonly semantic?: SemanticSearch | undefined;
  readonly targets: MemoryTargets;
  readonly cursors: CursorCodec;
  readonly fullLists: ListCache<JsonText<ListResponse>>;
  readonly maxContentChars: number;
  readonly optimisticConcurrency: boolean;
  readonly now?: () => number;
}

/** What hybrid search needs besides the lexical index (docs/design.md §3.4.1). */
export interface SemanticSearch {
  readonly queries: QueryEmbedder;
  readonly vectors: VectorIndex;
  /** Memories less similar to the query than this cosine are not found by their vector. */
  readonly minSimilarity: number;
  /** Told after each commit that gave a memory new content (the indexer's nudge). */
  readonly contentChanged: () => void;
}

/** What the reads, the writes and the searches each stand on: the deps, and shared helpers. */
export type MemoryServiceContext = ReturnType<typeof createMemoryServiceContext>;

export function createMemoryServiceContext(deps: MemoryServiceDeps) {
  const { database, repository: repo } = deps;
  const { reader } = database;

  /** Records an act that writes nothing else (a read, a repeated delete) in a write of its own. */
  async function auditAlone(caller: Caller, target: Target, action: string, memoryId?: string) {
    if (target.overridden) {
      await database.write((trx) =>
        recordAudit(trx, {
          orgId: caller.orgId,
          actorId: caller.userId,
          targetId: target.userId,
          action,
          memoryId,
        }),
      );
    }
  }

  /**
   * The memory by id as the target may reach it, or 404 for anything else. A pool memory also
   * needs the caller's own access to its project, whoever the target: acting for a
   * contributor reaches no further into a pool than the caller's own grant.
   */
  async function reachable(
    caller: Caller,
    target: Target,
    rawId: string,
    access: readonly ProjectAccess[],
  ) {
    const memoryId = parseUuid(rawId);
    if (!memoryId) throw memoryNotFound();
    const row = await repo.findReachable(reader, {
      orgId: caller.orgId,
      memoryId,
      userId: target.userId,
      callerId: caller.userId,
      poolAccess: access,
    });
    if (!row) throw memoryNotFound();
    return row;
  }

  return { deps, now: deps.now ?? Date.now, auditAlone, reachable };
}
