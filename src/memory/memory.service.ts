import type { Readable } from 'node:stream';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Caller, ReadAlong } from '../auth/authenticate.ts';
import type { Database } from '../db/database.ts';
import { newRowId } from '../db/row-id.ts';
import type { ProjectAccess } from '../db/tables.ts';
import { badRequest, forbidden } from '../platform/errors.ts';
import { analyzeQuery } from '../platform/search-analyzer.ts';
import { parseUuid } from '../platform/uuid.ts';
import { type CursorCodec, type CursorScope, expiredCursor } from './cursor.ts';
import { foldKey } from './fold.ts';
import { checkImportItem } from './import-items.ts';
import type { ListCache } from './list-cache.ts';
import {
  contentProblem,
  editConflict,
  invalidBaseUpdatedAt,
  memoryNotFound,
  noUpdateFields,
  searchQueryRequired,
  unknownCategory,
  unknownTargetUser,
} from './memory.errors.ts';
import {
  type MemoryRepository,
  POOL_ACCESS,
  type ReachableMemory,
  type ScopeState,
} from './memory.repository.ts';
import type {
  AddBody,
  EraseQuery,
  ExportQuery,
  ImportBody,
  ImportResponse,
  ListQuery,
  ListResponse,
  MemoryItem,
  SearchQuery,
  SearchResponse,
  UpdateBody,
} from './memory.schemas.ts';
import type { MemoryTargets, Target } from './memory.targets.ts';
import type { MemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { isMissingContributor } from './memory-erasure.ts';
import { recognizedCategory, toMemoryItem } from './memory-item.ts';
import type { FoundMemory } from './memory-search.repository.ts';
import type { MemorySearch } from './memory-search.ts';
import type { AddResult, AuditedAct, MemoryWrites } from './memory-writes.ts';
import type { OwnStoreReads } from './own-store-reads.ts';
import type { QueryEmbedder } from './query-embedding.ts';
import { fuseRankings } from './rank-fusion.ts';
import { eraseStore } from './store-erase.ts';
import { createStoreExport } from './store-export.ts';
import type { VectorIndex } from './vector-index.ts';

export interface MemoryServiceDeps {
  readonly database: Database;
  readonly repository: MemoryRepository;
  /** Reads of one's own store in the caller's statement (own-store-reads.ts). */
  readonly ownReads: OwnStoreReads;
  readonly writes: MemoryWrites;
  /** Lexical search: on SQLite in worker threads (memory-search.ts). */
  readonly search: MemorySearch;
  /** Vectors of memories: dropped with a deleted memory whether or not search uses them. */
  readonly embeddings: MemoryEmbeddingsRepository;
  /** Semantic search, when an embedding model is configured; else search is lexical. */
  readonly semantic?: SemanticSearch | undefined;
  readonly targets: MemoryTargets;
  readonly cursors: CursorCodec;
  readonly fullLists: ListCache;
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

export type AddOutcome =
  | { readonly created: true; readonly memory: MemoryItem }
  | { readonly created: false; readonly memory: { id: string; content: string } };

const READ_POOL = POOL_ACCESS.read;
const EDIT_POOL = POOL_ACCESS.edit;
/** How many memories a search answers when `limit` does not say. */
const SEARCH_LIMIT_DEFAULT = 20;
/** Candidates each side of a hybrid search brings to the fusion (at least `limit`). */
const SEARCH_CANDIDATES = 50;

export function createMemoryService(deps: MemoryServiceDeps) {
  const {
    database,
    repository: repo,
    ownReads,
    writes,
    targets,
    cursors,
    fullLists,
    semantic,
  } = deps;
  const { reader } = database;
  const now = deps.now ?? Date.now;
  const exports = createStoreExport({ database, repository: repo });

  function checkContent(content: string): void {
    const problem = contentProblem(content, deps.maxContentChars);
    if (problem !== undefined) throw badRequest(problem);
  }

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

  function scopeOf(
    caller: Caller,
    row: { scope_kind: 'user' | 'project'; scope_owner_id: string },
  ): CursorScope {
    return { orgId: caller.orgId, kind: row.scope_kind, ownerId: row.scope_owner_id };
  }

  /**
   * The lexical candidates and the nearest by vector, fused by reciprocal rank (rank-fusion.ts);
   * by words alone when the query cannot be embedded in time. `score` is the fused score.
   */
  async function hybridSearch(
    semantic: SemanticSearch,
    state: { id: string; version: number },
    q: string,
    category: string | null,
    limit: number,
    signal: AbortSignal | undefined,
  ): Promise<SearchResponse> {
    const candidates = Math.max(limit, SEARCH_CANDIDATES);
    const query = analyzeQuery(q);
    const [lexical, nearest] = await Promise.all([
      deps.search.find({ scopeId: state.id, query, category, limit: candidates }, signal),
      nearestByVector(semantic, state, q, category, candidates),
    ]);
    if (!nearest) return { memories: lexical.slice(0, limit).map(scored), mode: 'lexical' };
    const fused = fuseRankings([lexical.map((row) => row.id), nearest]).slice(0, limit);
    const rows = new Map<string, Omit<FoundMemory, 'score'>>(lexical.map((row) => [row.id, row]));
    const onlyNear = fused.filter((hit) => !rows.has(hit.id)).map((hit) => hit.id);
    // Read again by id: a memory deleted since its vector was read is not shown.
    for (const row of await deps.embeddings.activeAmong(reader, state.id, onlyNear)) {
      rows.set(row.id, row);
    }
    return {
      memories: fused.flatMap((hit) => {
        const row = rows.get(hit.id);
        return row ? [{ ...toMemoryItem(row), score: hit.score }] : [];
      }),
      mode: 'hybrid',
    };
  }

  /** The ids of the memories nearest to the query, or undefined when it was not embedded. */
  async function nearestByVector(
    semantic: SemanticSearch,
    state: { id: string; version: number },
    q: string,
    category: string | null,
    limit: number,
  ): Promise<string[] | undefined> {
    // The store's vectors are read while the query is embedded.
    const vectors = semantic.vectors.storeVectors(
      reader,
      state.id,
      state.version,
      semantic.queries.model,
    );
    const query = await semantic.queries.embed(q);
    if (!query) {
      vectors.catch(() => undefined);
      return undefined;
    }
    const neighbours = (await vectors).nearest(query, {
      category,
      limit,
      minSimilarity: semantic.minSimilarity,
    });
    return neighbours.map((neighbour) => neighbour.id);
  }

  /**
   * A store's active memories that match `q`, best first (`search`'s ranking). A search whose
   * `signal` aborts (its client left) before it starts is not run.
   */
  async function findIn(
    state: { id: string; version: number },
    q: string,
    category: string | null,
    limit: number,
    signal?: AbortSignal,
  ): Promise<SearchResponse> {
    if (semantic) return hybridSearch(semantic, state, q, category, limit, signal);
    const query = analyzeQuery(q);
    const found = await deps.search.find({ scopeId: state.id, query, category, limit }, signal);
    return { memories: found.map(scored), mode: 'lexical' };
  }

  return {
    /**
     * The list answer as its JSON body: full lists are kept serialized (see list-cache.ts).
     * `ownScope`: the counter of the caller's personal store as `readOwnScopeWithCaller` read
     * it, when the query names no other store: not read again.
     */
    async list(
      caller: Caller,
      query: ListQuery,
      ownScope?: { readonly state: ScopeState | undefined },
    ): Promise<string> {
      const { scope, target } = await targets.forList(caller, query);
      const since = query.since === undefined ? undefined : cursors.decode(scope, query.since);
      // Read the counter before the rows: every change at or below it has committed, so the
      // rows read next hold all of them (and perhaps later ones, which the next pull repeats).
      const state =
        ownScope && !target.overridden && scope.kind === 'user'
          ? ownScope.state
          : await repo.readScope(reader, scope);
      const version = state?.version ?? 0;
      // Audited once answered: a pull refused with 410 was no read done for the target.
      const answered = async (body: string) => {
        await auditAlone(caller, target, 'list');
        return body;
      };
      const json = (response: ListResponse) => JSON.stringify(response);
      // A kept list holds its cursor already (the same bytes: cursors are deterministic).
      const cached = since === undefined && state ? fullLists.get(state.id, version) : undefined;
      if (cached !== undefined) return answered(cached);
      // A pull that finds no change answers with the cursor it was given (the same bytes).
      const cursor =
        since === version && query.since !== undefined
          ? query.since
          : cursors.encode(scope, version);
      if (since === undefined) {
        if (!state) return answered(json({ memories: [], cursor }));
        const rows = await repo.listActive(reader, state.id);
        const body = json({ memories: rows.map(toMemoryItem), cursor });
        fullLists.set(state.id, version, body);
        return answered(body);
      }
      if (since > version) throw expiredCursor();
      // The rows with the store's purge mark, read together: a purge since the counter was read
      // is seen, and answered as an expired cursor.
      const changes = state ? await repo.changesSince(reader, state.id, since) : undefined;
      if (since < (changes?.purgedVersion ?? 0)) throw expiredCursor();
      const memories: MemoryItem[] = [];
      const deleted: string[] = [];
      for (const row of changes?.changed ?? []) {
        if (row.deleted_at === null) memories.push(toMemoryItem(row));
        else deleted.push(row.id);
      }
      return answered(json({ memories, deleted, cursor }));
    },

    /**
     * The store's active memories that match `q`, best first: by their words, fused with the
     * nearest by meaning when an embedding model is configured and answers in time. `signal`:
     * the request's, aborted when its client leaves.
     */
    async search(
      caller: Caller,
      query: SearchQuery,
      signal?: AbortSignal,
    ): Promise<SearchResponse> {
      if (!/\S/u.test(query.q)) throw searchQueryRequired();
      // The schemas of both callers (the route's, the MCP tool's) hold it within 1 to 100.
      const limit = query.limit ?? SEARCH_LIMIT_DEFAULT;
      const { scope, target } = await targets.forList(caller, query);
      const state = await repo.readScope(reader, scope);
      const answer: SearchResponse = state
        ? await findIn(state, query.q, query.category ?? null, limit, signal)
        : // A store never written: nothing to find, in the mode search is configured for.
          { memories: [], mode: semantic ? 'hybrid' : 'lexical' };
      await auditAlone(caller, target, 'search');
      return answer;
    },

    /**
     * Lets go of what this process keeps of stores that were erased (their full lists and
     * vectors): nothing could reach them any more, but nothing of them should stay either.
     */
    forgetStores(scopeIds: readonly string[]): void {
      for (const scopeId of scopeIds) {
        fullLists.forget(scopeId);
        semantic?.vectors.forget(scopeId);
      }
    },

    /**
     * Whom a request for `user` acts on, refused as the API's `user` is: 403 when the
     * organization lets only owners and admins act for others, 400 for no member.
     */
    actingFor: (caller: Caller, user: string): Promise<Target> => targets.forMember(caller, user),

    /** Refuses as the API would a caller who may not read (or edit) the store. */
    async checkStore(
      caller: Caller,
      input: { readonly project?: string | undefined },
      need: 'read' | 'edit',
    ): Promise<void> {
      await (need === 'read' ? targets.forList(caller, input) : targets.forAdd(caller, input));
    },

    /**
     * What a chat call recalls (docs/memory-chat.md): the whole store, most recently changed
     * first, when it holds at most `wholeStoreUpTo` memories; else the `limit` best matches of
     * `query` (the most recently changed when it has no words). The same access rules and
     * audit as a list or a search.
     */
    async recall(
      caller: Caller,
      input: {
        readonly project?: string | undefined;
        readonly user?: string | undefined;
        readonly query: string;
        readonly wholeStoreUpTo: number;
        readonly limit: number;
      },
    ): Promise<RecalledMemory[]> {
      const { scope, target } = await targets.forList(caller, input);
      const state = await repo.readScope(reader, scope);
      let memories: RecalledMemory[] = [];
      if (state) {
        const small =
          (await repo.activeCountUpTo(reader, state.id, input.wholeStoreUpTo + 1)) <=
          input.wholeStoreUpTo;
        if (small || !/\S/u.test(input.query)) {
          const limit = small ? input.wholeStoreUpTo : input.limit;
          memories = (await repo.recentActive(reader, state.id, limit)).map(recalled);
        } else if (!semantic) {
          // The rows as found: a prompt needs no timestamps formatted.
          const found = await deps.search.find({
            scopeId: state.id,
            query: analyzeQuery(input.query),
            category: null,
            limit: input.limit,
          });
          memories = found.map(recalled);
        } else {
          memories = (await findIn(state, input.query, null, input.limit)).memories.map((item) =>
            recalled({ ...item, category: item.category ?? null }),
          );
        }
      }
      await auditAlone(caller, target, 'search');
      return memories;
    },

    /**
     * The caller's own memory `rawId` (as `get` reaches it) read in the statement of the
     * caller's context: for `memberReading` (auth/authenticate.ts). Undefined when `rawId` is no
     * memory id: nothing to read.
     */
    readOwnWithCaller(
      userId: string,
      orgId: string,
      rawId: string,
    ): Promise<ReadAlong<ReachableMemory | undefined>> | undefined {
      const memoryId = parseUuid(rawId);
      if (!memoryId) return undefined;
      return ownReads.memory({ orgId, memoryId, userId });
    },

    /** The counter of the caller's personal store, read in the statement of their context. */
    readOwnScopeWithCaller: (userId: string, orgId: string) => ownReads.scope({ orgId, userId }),

    /**
     * `own`: the memory as `readOwnWithCaller` found it for this caller, when `user` names no
     * one else: not read again.
     */
    async get(
      caller: Caller,
      id: string,
      user: string | undefined,
      own?: { readonly memory: ReachableMemory | undefined },
    ): Promise<MemoryItem> {
      const target = await targets.forMember(caller, user);
      const row =
        own && !target.overridden ? own.memory : await reachable(caller, target, id, READ_POOL);
      if (!row || row.deleted_at !== null) throw memoryNotFound();
      await auditAlone(caller, target, 'get', row.id);
      return toMemoryItem(row);
    },

    async add(caller: Caller, body: AddBody): Promise<AddOutcome> {
      checkContent(body.content);
      const { scope, target } = await targets.forAdd(caller, body);
      const result = await writes
        .add({
          scope,
          id: newRowId(),
          contributorId: target.userId,
          content: body.content,
          foldKey: foldKey(body.content),
          category: recognizedCategory(body.category),
          at: now(),
          audit: auditedAct(caller, target),
        })
        .catch((error: unknown) => {
          // Erased after the checks above and before the write: no member any more.
          throw isMissingContributor(error) ? unknownTargetUser() : error;
        });
      if (!result.created) {
        return { created: false, memory: { id: result.memory.id, content: result.memory.content } };
      }
      semantic?.contentChanged();
      return { created: true, memory: toMemoryItem(result.memory) };
    },

    /**
     * Up to MAX_IMPORT_ITEMS adds to one store in one write (docs/design.md §3.7): each item
     * checked alone (import-items.ts) and added as an add would be, folding into the store and
     * into the items before it; `admit` is told how many items came once the store is known to
     * be the caller's to write (the route's budget of imported items), before anything is written.
     */
    async import(
      caller: Caller,
      body: ImportBody,
      admit: (items: number) => Promise<void>,
    ): Promise<ImportResponse> {
      const { scope, target } = await targets.forAdd(caller, body);
      await admit(body.memories.length);
      const at = now();
      const checked = body.memories.map((item) =>
        checkImportItem(item, { maxContentChars: deps.maxContentChars, now: at }),
      );
      const audit = auditedAct(caller, target);
      const toAdd = checked.flatMap((item) =>
        item.ok
          ? [
              {
                scope,
                id: newRowId(),
                contributorId: target.userId,
                content: item.content,
                foldKey: foldKey(item.content),
                category: item.category,
                at,
                createdAt: item.createdAt,
                audit,
              },
            ]
          : [],
      );
      const written = await writes.addMany(toAdd).catch((error: unknown) => {
        throw isMissingContributor(error) ? unknownTargetUser() : error;
      });
      const response: ImportResponse = { results: [], created: 0, folded: 0, invalid: 0 };
      let next = 0;
      for (const item of checked) {
        if (!item.ok) {
          response.invalid++;
          response.results.push({ status: 'invalid', error: item.error });
          continue;
        }
        const result = written[next++] as AddResult;
        if (result.created) response.created++;
        else response.folded++;
        response.results.push({
          status: result.created ? 'created' : 'folded',
          memory: toMemoryItem(result.memory),
        });
      }
      if (response.created > 0) semantic?.contentChanged();
      return response;
    },

    async update(
      caller: Caller,
      id: string,
      user: string | undefined,
      body: UpdateBody,
    ): Promise<MemoryItem> {
      const hasCategory = 'category' in body;
      if (body.content === undefined && !hasCategory) throw noUpdateFields();
      if (body.content !== undefined) checkContent(body.content);
      const base = deps.optimisticConcurrency ? parseBaseUpdatedAt(body.baseUpdatedAt) : undefined;
      const target = await targets.forMember(caller, user);
      const found = await reachable(caller, target, id, EDIT_POOL);
      if (found.deleted_at !== null) throw memoryNotFound();
      const result = await writes.update({
        scope: scopeOf(caller, found),
        memoryId: found.id,
        content:
          body.content === undefined
            ? undefined
            : { text: body.content, foldKey: foldKey(body.content) },
        category: hasCategory ? { value: recognizedCategory(body.category) } : undefined,
        expectedUpdatedAt: base,
        at: now(),
        audit: auditedAct(caller, target),
      });
      if (result.outcome === 'gone') throw memoryNotFound();
      if (result.outcome === 'conflict') throw editConflict(toMemoryItem(result.memory));
      if (result.newContent) semantic?.contentChanged();
      return toMemoryItem(result.memory);
    },

    async remove(caller: Caller, id: string, user: string | undefined): Promise<void> {
      const target = await targets.forMember(caller, user);
      const found = await reachable(caller, target, id, EDIT_POOL);
      // Idempotent: deleting a deleted memory is fine and changes nothing, but done for
      // another member it is an act all the same, and the audit log records every one.
      if (found.deleted_at !== null) {
        await auditAlone(caller, target, 'delete', found.id);
        return;
      }
      await writes.remove({
        scope: scopeOf(caller, found),
        memoryId: found.id,
        at: now(),
        audit: auditedAct(caller, target),
      });
    },

    /**
     * The store's active memories as JSON lines read from one snapshot, and the cursor of that
     * snapshot, for `since=` of the list (store-export.ts). Refused as the list is.
     */
    async export(
      caller: Caller,
      query: ExportQuery,
    ): Promise<{ readonly cursor: string; readonly lines: Readable }> {
      const { scope, target } = await targets.forList(caller, query);
      const { started, stream } = await exports.store(async (snapshot) => {
        const state = await repo.readScope(snapshot.reader, scope);
        await auditAlone(caller, target, 'export');
        return state;
      });
      return { cursor: cursors.encode(scope, started?.version ?? 0), lines: stream };
    },

    /**
     * Every store of the caller's organization as JSON lines, read from one snapshot: a backup,
     * or a move to another server. Its owners only, and audited.
     */
    async exportOrganization(caller: Caller): Promise<Readable> {
      if (caller.role !== 'owner') throw forbidden('only owners can export the organization');
      const { stream } = await exports.organization(caller.orgId, () =>
        database.write((trx) =>
          recordAudit(trx, {
            orgId: caller.orgId,
            actorId: caller.userId,
            targetId: caller.orgId,
            action: 'org.export',
          }),
        ),
      );
      return stream;
    },

    /**
     * Deletes every active memory of a store, or of one category of it, in one write
     * (store-erase.ts); a pool needs its owners. Answers how many went.
     */
    async erase(caller: Caller, query: EraseQuery): Promise<number> {
      const category = query.category === undefined ? null : recognizedCategory(query.category);
      if (query.category !== undefined && category === null) throw unknownCategory();
      const { scope, target } = await targets.forErase(caller, query);
      return eraseStore(
        { database, repository: repo },
        { scope, category, at: now(), audit: auditedAct(caller, target) },
      );
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;

/** Who acted for whom, when the request acts for another member: what a write audits. */
const auditedAct = (caller: Caller, target: Target): AuditedAct | undefined =>
  target.overridden
    ? { orgId: caller.orgId, actorId: caller.userId, targetId: target.userId }
    : undefined;

const scored = (row: FoundMemory) => ({ ...toMemoryItem(row), score: row.score });

/** A memory as a chat call's recall gives it: what a prompt shows of it. */
export interface RecalledMemory {
  readonly id: string;
  readonly content: string;
  readonly category: string | null;
}

const recalled = (row: { id: string; content: string; category: string | null }) => ({
  id: row.id,
  content: row.content,
  category: recognizedCategory(row.category),
});

function parseBaseUpdatedAt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) throw invalidBaseUpdatedAt();
  return ms;
}
