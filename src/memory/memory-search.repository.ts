import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type { AnalyzedQuery, QueryWord } from '../platform/search-analyzer.ts';
import type { ShownMemory } from './memory.repository.ts';
import {
  type Candidate,
  rankWithContext,
  type StoreCounts,
  scoreCandidates,
  scoredWords,
} from './search-ranking.ts';

export type FoundMemory = Omit<ShownMemory, 'deleted_at'> & { score: number };

/**
 * How each engine's query language writes a query's terms. The terms hold letters, digits and
 * marks only (the analyzer emits nothing else), and each is still quoted where the language
 * allows: nothing a person types can be read as an operator.
 */
interface QueryLanguage {
  term(term: string, prefix: boolean): string;
  readonly or: string;
  readonly and: string;
}

const fts5: QueryLanguage = {
  term: (term, prefix) => `"${term.replaceAll('"', '""')}"${prefix ? '*' : ''}`,
  or: ' OR ',
  and: ' AND ',
};

const tsquery: QueryLanguage = {
  term: (term, prefix) =>
    `'${term.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${prefix ? ':*' : ''}`,
  or: ' | ',
  and: ' & ',
};

/** A word's forms (and prefix), as one alternative of the query language. */
function wordMatch(word: QueryWord, language: QueryLanguage): string {
  const terms = new Set(word.forms.map((form) => language.term(form, false)));
  if (word.prefix !== undefined) terms.add(language.term(word.prefix, true));
  return `(${[...terms].join(language.or)})`;
}

/**
 * A store of at most this many memories is ranked whole, every weight exact. In a larger one
 * the candidates are the memories its rarer words bring (see `COMMON_AFTER`); a common word is
 * not looked up (it would bring most of the store and weigh little) but still scores in the
 * memories the other words bring.
 */
export const MAX_CANDIDATES = 1000;

/**
 * In a store larger than `MAX_CANDIDATES`, a word more of its memories hold than this is common:
 * counting a word's memories costs what it counts (on PostgreSQL, a visit of each row), so the
 * count stops one past this, and a common word is not looked up beside a rarer one.
 */
const COMMON_AFTER = 250;
/**
 * A query of common words only, in a store larger than `MAX_CANDIDATES`, ranks the latest this
 * many memories holding them: the index has no order by relevance to read them in, and reading
 * them all costs what they are (22,000 of 100,000 for `team`).
 */
const COMMON_READ = 200;
/** Stores whose size is remembered, to choose the way to search them. */
const REMEMBERED_STORES = 10_000;

/** What a large store's search finds: candidates, the store's counts, the common words' counts. */
interface LargeStoreFound {
  found: Candidate[];
  store: StoreCounts;
  holding: (number | undefined)[];
}

/** A candidate as read, with its store's counts on every row. */
type CandidateRow = Candidate & { store_memories: number | null; store_terms: number | null };

/** The store's counts, as two columns of a statement. */
const storeColumns = (scopeId: string) =>
  sql`(select memories from memory_search_counts where scope_id = ${scopeId}) as store_memories,
    (select terms from memory_search_counts where scope_id = ${scopeId}) as store_terms`;

interface CandidateParams {
  scopeId: string;
  /** `store : "s…" AND search_terms : (…)` on SQLite; the words' tsquery on PostgreSQL. */
  match: string;
  /** PostgreSQL: the store's `@` lexeme, as a tsquery. */
  store: string;
  category: string | null;
  limit: number;
}

/**
 * Lexical search of one store's active memories, best first: each engine finds the memories that
 * hold some word of the query — SQLite's FTS5 inside the store's own rows, PostgreSQL's full text
 * index — and counts the store; search-ranking.ts orders them, the same way for both.
 */
export function createMemorySearchRepository(database: Pick<Database, 'db' | 'dialect'>) {
  const { db } = database;
  const postgres = database.dialect === 'postgres';

  // Engine-specific SQL, compiled once like the repository's other queries.
  const compiled = <Row>(raw: RawBuilder<Row>) => ({ compile: () => raw.compile(db) });
  // The most recently written first: when a common word's memories are more than are read, the
  // latest of them are (the index itself has no order by relevance to read them in).
  const candidatesPostgres = prepareQuery((p: CandidateParams) =>
    compiled(
      sql<CandidateRow>`select id, content, category, created_at, updated_at, version, search_terms,
          ${storeColumns(p.scopeId)}
        from memories
        where scope_id = ${p.scopeId} and deleted_at is null
          and search_vector @@ (to_tsquery('simple', ${p.match}) && cast(${p.store} as tsquery))
          and (cast(${p.category} as text) is null or category = ${p.category})
        order by version desc
        limit ${p.limit}`,
    ),
  );
  // The store's token AND the words, inside MATCH, so FTS5 reads that store's rows only, the
  // last indexed first (FTS5 reads its rows backwards at no cost); CROSS JOIN keeps the index
  // first.
  const candidatesSqlite = prepareQuery((p: CandidateParams) =>
    compiled(
      sql<CandidateRow>`select m.id, m.content, m.category, m.created_at, m.updated_at, m.version,
          m.search_terms, ${storeColumns(p.scopeId)}
        from (
          select rowid from memory_search where memory_search match ${p.match}
          order by rowid desc limit ${p.limit}
        ) as f
          cross join memory_search_keys as k on k.key = f.rowid
          cross join memories as m on m.id = k.memory_id
        where m.scope_id = ${p.scopeId} and m.deleted_at is null
          and (${p.category} is null or m.category = ${p.category})`,
    ),
  );
  // SQLite: how many memories hold each of n words — across the whole index, or in the store —
  // counting no further than one past `COMMON_AFTER`, with the store's counts: one statement.
  // Parameters are named per word (`m0`, `m1`, …): a prepared query's parameters are its
  // arguments' own fields.
  const countings = new Map<number, ReturnType<typeof counting>>();
  const counting = (n: number) =>
    prepareQuery((p: Record<string, string>) =>
      compiled(
        sql<Record<string, number>>`select ${sql.join(
          Array.from(
            { length: n },
            (_, i) => sql`(select count(*) from (select rowid from memory_search
              where memory_search match ${p[`m${i}`]} limit ${COMMON_AFTER + 1})) as ${sql.ref(`c${i}`)}`,
          ),
        )}, ${storeColumns(p.scopeId as string)}`,
      ),
    );
  // PostgreSQL: the whole search of a large store, counts and memories, in one call
  // (migration 2026-11-28T02_search_words, which follows `largeStore` below).
  const searchWords = prepareQuery(
    (p: { scopeId: string; store: string; words: string[]; category: string | null }) =>
      compiled(
        sql<CandidateRow & { counts: number[] }>`select * from mnemo_search_words(
          ${p.scopeId}, ${p.store}, ${p.words}, ${p.category},
          ${COMMON_AFTER}, ${COMMON_READ})`,
      ),
  );

  // Each field named: a rest-and-spread copy cost a quarter of a small store's search.
  const numbers = (rows: CandidateRow[]): Candidate[] =>
    rows.map((row) => ({
      id: row.id,
      content: row.content,
      category: row.category,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      version: Number(row.version),
      search_terms: row.search_terms,
    }));
  const countsOf = (row: { store_memories: unknown; store_terms: unknown } | undefined) => ({
    memories: Number(row?.store_memories ?? 0),
    terms: Number(row?.store_terms ?? 0),
  });
  // The size each store was last seen at: only which way to search is chosen by it, every
  // figure a ranking uses is read with the candidates. Bounded: the oldest is forgotten first.
  const sizes = new Map<string, number>();
  const remember = (scopeId: string, memories: number) => {
    sizes.delete(scopeId);
    sizes.set(scopeId, memories);
    if (sizes.size > REMEMBERED_STORES) sizes.delete(sizes.keys().next().value as string);
  };

  /**
   * The words as the engine matches them: within the store (its token), or, on SQLite, across
   * the index.
   */
  function matching(scopeId: string, words: string, inStore = true) {
    const hex = scopeId.replaceAll('-', '');
    if (postgres) return { match: words, store: `'@${hex}'` };
    const terms = `search_terms : (${words})`;
    return { match: inStore ? `store : "s${hex}" AND ${terms}` : terms, store: '' };
  }

  async function candidates(
    runner: QueryRunner,
    scopeId: string,
    words: string,
    options: { category: string | null; limit: number; inStore?: boolean },
  ): Promise<{ found: Candidate[]; store: StoreCounts }> {
    const { inStore = true, ...rest } = options;
    const params = { scopeId, ...matching(scopeId, words, inStore), ...rest };
    const statement = postgres ? candidatesPostgres : candidatesSqlite;
    const rows = await statement.rows(runner, params);
    return { found: numbers(rows), store: countsOf(rows[0]) };
  }

  /**
   * How many memories hold each word, across the index or in the store, one past
   * `COMMON_AFTER` at most; and the store's counts.
   */
  async function held(runner: QueryRunner, scopeId: string, matches: string[], inStore: boolean) {
    const statement = countings.get(matches.length) ?? counting(matches.length);
    countings.set(matches.length, statement);
    const params = matches.map((words) => matching(scopeId, words, inStore));
    const row = await statement.first(runner, {
      ...Object.fromEntries(params.map((p, i) => [`m${i}`, p.match])),
      scopeId,
    });
    return {
      counts: matches.map((_, i) => Number(row?.[`c${i}`] ?? 0)),
      store: countsOf(row as { store_memories: unknown; store_terms: unknown } | undefined),
    };
  }

  /**
   * A store larger than `MAX_CANDIDATES`: each word's memories in the store counted first, one
   * past `COMMON_AFTER` at most; a common word is not looked up, its count taken as one past
   * `COMMON_AFTER`; a rare word's count is read from the candidates, which hold every memory of
   * the store that holds it. With only common words, the latest memories holding all of them are
   * read, else those holding any. PostgreSQL does all of it in one call (`mnemo_search_words`);
   * SQLite counts across the whole index first, and in the store only a word many memories of
   * the database hold.
   */
  async function largeStore(
    runner: QueryRunner,
    scopeId: string,
    alternatives: string[],
    language: QueryLanguage,
    category: string | null,
  ): Promise<LargeStoreFound> {
    if (postgres) {
      const rows = await searchWords.rows(runner, {
        scopeId,
        store: matching(scopeId, '').store,
        words: alternatives,
        category,
      });
      const store = countsOf(rows[0]);
      remember(scopeId, store.memories);
      const counts = rows[0]?.counts ?? [];
      return {
        found: numbers(rows.filter((row) => row.id !== null)),
        store,
        holding: counts.map((n) => (n <= COMMON_AFTER ? undefined : COMMON_AFTER + 1)),
      };
    }
    const across = await held(runner, scopeId, alternatives, false);
    const { store } = across;
    remember(scopeId, store.memories);
    const none = { found: [], store, holding: [] };
    if (!across.counts.some((n) => n > 0)) return none;
    const wide = alternatives.filter((_, w) => (across.counts[w] ?? 0) > COMMON_AFTER);
    const inStore = wide.length > 0 ? (await held(runner, scopeId, wide, true)).counts : [];
    const inStoreOf = new Map(wide.map((words, i) => [words, inStore[i] ?? 0]));
    const count = (w: number) =>
      inStoreOf.get(alternatives[w] as string) ?? (across.counts[w] as number);
    const rare = alternatives.filter((_, w) => count(w) <= COMMON_AFTER);
    const holding = alternatives.map((_, w) =>
      count(w) <= COMMON_AFTER ? undefined : COMMON_AFTER + 1,
    );
    if (!alternatives.some((_, w) => count(w) > 0 && count(w) <= COMMON_AFTER)) {
      // Only common words: the latest memories holding all of them, else any.
      const read = { category, limit: COMMON_READ };
      return {
        found: await latestOf(runner, scopeId, alternatives, language, read),
        store,
        holding,
      };
    }
    // Rare across the whole index too: found across it, the store's kept; else in the store.
    const acrossRows = rare.some((words) => inStoreOf.has(words))
      ? Number.POSITIVE_INFINITY
      : alternatives.reduce(
          (sum, words, w) => sum + (rare.includes(words) ? (across.counts[w] ?? 0) : 0),
          0,
        );
    const found = await candidates(runner, scopeId, rare.join(language.or), {
      category,
      limit: COMMON_AFTER * rare.length,
      inStore: acrossRows > COMMON_AFTER,
    });
    return { found: found.found, store, holding };
  }

  return {
    /**
     * The store's active memories that hold some word of the query, best first
     * (search-ranking.ts).
     */
    async find(
      runner: QueryRunner,
      scopeId: string,
      query: AnalyzedQuery,
      options: { category: string | null; limit: number },
    ): Promise<FoundMemory[]> {
      const words = scoredWords(query);
      if (words.length === 0) return [];
      const language = postgres ? tsquery : fts5;
      const alternatives = words.map((word) => wordMatch(word, language));
      const read = { category: options.category, limit: MAX_CANDIDATES };
      let found: Candidate[] = [];
      let store: StoreCounts | undefined;
      let holding: (number | undefined)[] | undefined;
      if ((sizes.get(scopeId) ?? 0) <= MAX_CANDIDATES) {
        // Small enough to rank whole: every memory holding a word is read, whatever its
        // category, so that every count is exact; the category is kept below. Found larger
        // than that (it grew), it is searched the other way.
        const any = alternatives.join(language.or);
        ({ found, store } = await candidates(runner, scopeId, any, { ...read, category: null }));
        if (found.length === 0) return [];
        remember(scopeId, store.memories);
        if (store.memories > MAX_CANDIDATES) store = undefined;
      }
      if (!store) {
        ({ found, store, holding } = await largeStore(
          runner,
          scopeId,
          alternatives,
          language,
          options.category,
        ));
        if (found.length === 0) return [];
      }
      const scored = scoreCandidates(query, found, store, holding).filter(
        (memory) => options.category === null || memory.category === options.category,
      );
      return rankWithContext(scored, options.limit);
    },
  };

  async function latestOf(
    runner: QueryRunner,
    scopeId: string,
    alternatives: string[],
    language: QueryLanguage,
    read: { category: string | null; limit: number },
  ): Promise<Candidate[]> {
    if (alternatives.length > 1) {
      const all = await candidates(runner, scopeId, alternatives.join(language.and), read);
      if (all.found.length > 0) return all.found;
    }
    return (await candidates(runner, scopeId, alternatives.join(language.or), read)).found;
  }
}

export type MemorySearchRepository = ReturnType<typeof createMemorySearchRepository>;
