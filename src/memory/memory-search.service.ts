import { analyzeQuery } from '../platform/search-analyzer.ts';
import type { Caller } from '../tenancy/index.ts';
import { searchQueryRequired } from './memory.errors.ts';
import type { SearchQuery, SearchResponse } from './memory.schemas.ts';
import { recognizedCategory, toMemoryItem } from './memory-item.ts';
import type { FoundMemory } from './memory-search.repository.ts';
import type { MemoryServiceContext, SemanticSearch } from './memory-service-context.ts';
import { fuseRankings } from './rank-fusion.ts';

/** How many memories a search answers when `limit` does not say. */
const SEARCH_LIMIT_DEFAULT = 20;
/** Candidates each side of a hybrid search brings to the fusion (at least `limit`). */
const SEARCH_CANDIDATES = 50;

/**
 * Search and recall of the memory service: a store's memories that match a query, by their
 * words, fused with the nearest by meaning when an embedding model is configured.
 */
export function createMemorySearchService({ deps, auditAlone }: MemoryServiceContext) {
  const { repository: repo, targets, semantic } = deps;
  const { reader } = deps.database;

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
  };
}

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
