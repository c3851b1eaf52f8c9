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
 * At most this many candidates are read and ranked, and a word held by more of a store's
 * memories than this is common. A store no larger is ranked whole, every weight exact; in a
 * larger one a common word is not looked up (it would bring most of the store and weigh little)
 * but still scores in the memories the other words bring, its count taken as one past this.
 */
export const MAX_CANDIDATES = 1000;

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
export function createMemorySearchRepository(database: Database) {
  const { db } = database;
  const postgres = database.dialect === 'postgres';

  // Engine-specific SQL, compiled once like the repository's other queries.
  const compiled = <Row>(raw: RawBuilder<Row>) => ({ compile: () => raw.compile(db) });
  // The most recently written first: when a common word's memories are more than are read, the
  // latest of them are (the index itself has no order by relevance to read them in).
  const candidatesPostgres = prepareQuery((p: CandidateParams) =>
    compiled(
      sql<Candidate>`select id, content, category, created_at, updated_at, version, search_terms
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
      sql<Candidate>`select m.id, m.content, m.category, m.created_at, m.updated_at, m.version,
          m.search_terms
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
  const storeCounts = prepareQuery((p: { scopeId: string }) =>
    db
      .selectFrom('memory_search_counts')
      .select(['memories', 'terms'])
      .where('scope_id', '=', p.scopeId),
  );
  // How many of the store's memories hold each of n words, counting no further than one past
  // `MAX_CANDIDATES` (a count costs what it counts): one statement, one call to the store.
  const countings = new Map<number, ReturnType<typeof counting>>();
  const counting = (n: number) =>
    prepareQuery((p: { matches: string[]; store: string }) => {
      const held = (i: number) =>
        postgres
          ? sql`(select count(*) from (select 1 from memories
              where search_vector @@ (to_tsquery('simple', ${p.matches[i]}) && cast(${p.store} as tsquery))
              limit ${MAX_CANDIDATES + 1}) as held)`
          : sql`(select count(*) from (select rowid from memory_search
              where memory_search match ${p.matches[i]} limit ${MAX_CANDIDATES + 1}))`;
      return compiled(
        sql<Record<string, number>>`select ${sql.join(
          Array.from({ length: n }, (_, i) => sql`${held(i)} as ${sql.ref(`c${i}`)}`),
        )}`,
      );
    });

  const numbers = (rows: Candidate[]): Candidate[] =>
    rows.map((row) => ({
      ...row,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      version: Number(row.version),
    }));

  /** The store's token and the words as the engine matches them within that store. */
  function inStore(scopeId: string, words: string) {
    const hex = scopeId.replaceAll('-', '');
    return postgres
      ? { match: words, store: `'@${hex}'` }
      : { match: `store : "s${hex}" AND search_terms : (${words})`, store: '' };
  }

  async function candidates(
    runner: QueryRunner,
    scopeId: string,
    words: string,
    options: { category: string | null; limit: number },
  ): Promise<Candidate[]> {
    const params = { scopeId, ...inStore(scopeId, words), ...options };
    const statement = postgres ? candidatesPostgres : candidatesSqlite;
    return numbers(await statement.rows(runner, params));
  }

  /** How many of the store's memories hold each word, one past `MAX_CANDIDATES` at most. */
  async function held(runner: QueryRunner, scopeId: string, matches: string[]) {
    const statement = countings.get(matches.length) ?? counting(matches.length);
    countings.set(matches.length, statement);
    const params = matches.map((words) => inStore(scopeId, words));
    const row = await statement.first(runner, {
      matches: params.map((p) => p.match),
      store: params[0]?.store ?? '',
    });
    return matches.map((_, i) => Number(row?.[`c${i}`] ?? 0));
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
      const counted = await storeCounts.first(runner, { scopeId });
      const store: StoreCounts = {
        memories: Number(counted?.memories ?? 0),
        terms: Number(counted?.terms ?? 0),
      };
      if (store.memories === 0) return [];
      const read = { category: options.category, limit: MAX_CANDIDATES };
      let found: Candidate[];
      let holding: number[] | undefined;
      if (store.memories <= MAX_CANDIDATES) {
        // Small enough to rank whole: every memory holding a word is read, whatever its
        // category, so that every count is exact; the category is kept below.
        const any = alternatives.join(language.or);
        found = await candidates(runner, scopeId, any, { ...read, category: null });
      } else {
        const counts = await held(runner, scopeId, alternatives);
        holding = counts;
        const rare = alternatives.filter((_, w) => (counts[w] ?? 0) <= MAX_CANDIDATES);
        const rareHeld = counts.some((n) => n > 0 && n <= MAX_CANDIDATES);
        found = rareHeld
          ? await candidates(runner, scopeId, rare.join(language.or), {
              ...read,
              limit: MAX_CANDIDATES * rare.length,
            })
          : // Only common words: the memories holding all of them, else any, the latest first.
            await bestOf(runner, scopeId, alternatives, language, read);
      }
      const scored = scoreCandidates(query, found, store, holding).filter(
        (memory) => options.category === null || memory.category === options.category,
      );
      return rankWithContext(scored, options.limit);
    },
  };

  async function bestOf(
    runner: QueryRunner,
    scopeId: string,
    alternatives: string[],
    language: QueryLanguage,
    read: { category: string | null; limit: number },
  ): Promise<Candidate[]> {
    if (alternatives.length > 1) {
      const all = await candidates(runner, scopeId, alternatives.join(language.and), read);
      if (all.length > 0) return all;
    }
    return candidates(runner, scopeId, alternatives.join(language.or), read);
  }
}

export type MemorySearchRepository = ReturnType<typeof createMemorySearchRepository>;
