import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepareQuery, type QueryRunner } from '../db/prepared-query.ts';
import type { AnalyzedQuery, TermGroup } from '../platform/search-analyzer.ts';
import type { ShownMemory } from './memory.repository.ts';

export type FoundMemory = Omit<ShownMemory, 'deleted_at'> & { score: number };

interface SearchParams {
  scopeId: string;
  match: string;
  category: string | null;
  limit: number;
}

/**
 * How each engine's query language writes a query's terms. The terms hold letters, digits and
 * marks only (the analyzer emits nothing else), and each is still quoted where the language
 * allows: nothing a person types can be read as an operator.
 */
interface QueryLanguage {
  term(term: string, prefix: boolean): string;
  readonly and: string;
  readonly or: string;
}

const fts5: QueryLanguage = {
  term: (term, prefix) => `"${term.replaceAll('"', '""')}"${prefix ? '*' : ''}`,
  and: ' AND ',
  or: ' OR ',
};

const tsquery: QueryLanguage = {
  term: (term, prefix) =>
    `'${term.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${prefix ? ':*' : ''}`,
  and: ' & ',
  or: ' | ',
};

/** Every group, each as its words or its joined form; the last term typed as a prefix. */
function allOf(query: AnalyzedQuery, language: QueryLanguage): string {
  const last = query.groups.length - 1;
  return query.groups
    .map((group, g) => {
      const atEnd = (i: number) => g === last && i === group.terms.length - 1;
      const words = group.terms.map((term, i) => language.term(term, atEnd(i))).join(language.and);
      if (group.joined === undefined) return group.terms.length > 1 ? `(${words})` : words;
      return `((${words})${language.or}${language.term(group.joined, g === last)})`;
    })
    .join(language.and);
}

/** Every term of the query, the joined forms included, in order. */
const allTerms = (query: AnalyzedQuery) =>
  query.groups.flatMap((group: TermGroup) =>
    group.joined === undefined ? group.terms : [...group.terms, group.joined],
  );

/**
 * Each term on its own (of those `keep` keeps), the query's last as a prefix: a question's
 * words, any of which may match.
 */
function eachTerm(
  query: AnalyzedQuery,
  language: QueryLanguage,
  keep: (term: string) => boolean = () => true,
): string[] {
  const terms = allTerms(query);
  const last = terms.length - 1;
  return terms.flatMap((term, i) => (keep(term) ? [language.term(term, i === last)] : []));
}

/**
 * A word more than this share of the memories hold, and at least `COMMON_AT_LEAST` of them, is
 * left out of an any-word search: below that, matching it costs little whatever it weighs.
 */
const COMMON_SHARE = 0.1;
const COMMON_AT_LEAST = 100;

/**
 * Lexical search of one store's active memories, best first: SQLite's FTS5 ranked by BM25, or
 * PostgreSQL's full text ranked by cover density (`ts_rank_cd`). Both index the terms that
 * memory.repository.ts writes with each memory.
 *
 * When no memory holds every word, any word will do, and then how common a word is matters most:
 * a question's `is` or `my` must not outweigh its subject. BM25 weighs each word by its rarity
 * (inverse document frequency); cover density knows nothing of it, so on PostgreSQL that
 * fallback is ranked by the sum of BM25's weights of the words each memory holds, counted over
 * the memories found.
 */
export function createMemorySearchRepository(database: Database) {
  const { db } = database;
  const postgres = database.dialect === 'postgres';
  const language = postgres ? tsquery : fts5;

  // Engine-specific SQL, compiled once like the repository's other queries.
  const compiled = <Row>(raw: RawBuilder<Row>) => ({ compile: () => raw.compile(db) });
  const searchPostgres = prepareQuery((p: SearchParams) =>
    compiled(
      sql<FoundMemory>`select id, content, category, created_at, updated_at,
          ts_rank_cd(search_vector, query) as score
        from memories, to_tsquery('simple', ${p.match}) as query
        where scope_id = ${p.scopeId} and deleted_at is null and search_vector @@ query
          and (cast(${p.category} as text) is null or category = ${p.category})
        order by score desc, updated_at desc, id
        limit ${p.limit}`,
    ),
  );
  // SQLite: the store is named inside MATCH (its `store` column, weighed 0 by BM25), so FTS5
  // reads that store's rows only. Without a category, the best rows are chosen in the index
  // alone and only they are joined to their memories; ties go to the memory indexed last.
  const searchSqlite = prepareQuery((p: SearchParams) =>
    compiled(
      sql<FoundMemory>`select m.id, m.content, m.category, m.created_at, m.updated_at, f.score
        from (
          select rowid, -bm25(memory_search, 1.0, 0.0) as score from memory_search
          where memory_search match ${p.match}
          order by score desc, rowid desc
          limit ${p.limit}
        ) as f
          join memory_search_keys as k on k.key = f.rowid
          join memories as m on m.id = k.memory_id
        where m.deleted_at is null
        order by f.score desc, f.rowid desc`,
    ),
  );
  const searchSqliteInCategory = prepareQuery((p: SearchParams) =>
    compiled(
      sql<FoundMemory>`select m.id, m.content, m.category, m.created_at, m.updated_at,
          -bm25(memory_search, 1.0, 0.0) as score
        from memory_search
          join memory_search_keys as k on k.key = memory_search.rowid
          join memories as m on m.id = k.memory_id
        where memory_search match ${p.match}
          and m.scope_id = ${p.scopeId} and m.deleted_at is null and m.category = ${p.category}
        order by score desc, k.key desc
        limit ${p.limit}`,
    ),
  );
  // How many memories hold each word, and how many there are (the `all` token every row has).
  const vocabulary = prepareQuery((p: { terms: string }) =>
    compiled(
      sql<{ term: string; col: string; doc: number }>`select term, col, doc
        from memory_search_vocabulary
        where (col = 'search_terms' and term in (select value from json_each(${p.terms})))
          or (col = 'store' and term = 'all')`,
    ),
  );

  // Each term's weight is ln(1 + (N - n + 0.5) / (n + 0.5)), N the memories found, n those
  // holding the term; a memory scores the weights of the terms it holds. The weights are
  // materialized: inlined into the score's subquery, they would be counted again for each row.
  const searchAnyPostgres = prepareQuery((p: Omit<SearchParams, 'match'> & { terms: string[] }) =>
    compiled(
      sql<FoundMemory>`with found as materialized (
          select id, content, category, created_at, updated_at, search_vector
          from memories
          where scope_id = ${p.scopeId} and deleted_at is null
            and search_vector @@ to_tsquery('simple', array_to_string(cast(${p.terms} as text[]), ' | '))
            and (cast(${p.category} as text) is null or category = ${p.category})
        ),
        term as (
          select distinct to_tsquery('simple', t) as query from unnest(cast(${p.terms} as text[])) as t
        ),
        weight as materialized (
          select term.query, ln(1 + ((select count(*) from found) - count(*) + 0.5) / (count(*) + 0.5)) as idf
          from term join found on found.search_vector @@ term.query
          group by term.query
        )
        select f.id, f.content, f.category, f.created_at, f.updated_at,
          (select sum(weight.idf) from weight where f.search_vector @@ weight.query) as score
        from found as f
        order by score desc, f.updated_at desc, f.id
        limit ${p.limit}`,
    ),
  );

  const numbers = (rows: FoundMemory[]) =>
    rows.map((row) => ({
      ...row,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      score: Number(row.score),
    }));
  const run = async (runner: QueryRunner, params: SearchParams) => {
    if (postgres) return numbers(await searchPostgres.rows(runner, params));
    // Only the store's rows, and of them only the words: a term never matches a store token.
    const match = `store : "s${params.scopeId.replaceAll('-', '')}" AND search_terms : (${params.match})`;
    const query = params.category === null ? searchSqlite : searchSqliteInCategory;
    return numbers(await query.rows(runner, { ...params, match }));
  };

  /**
   * The terms of an any-word search worth matching: on SQLite, a word more than one memory in
   * ten holds (and at least 100; counted over the whole index) is left out while a rarer one
   * that some memory holds remains — it would match much of the store and weigh little in BM25,
   * whose cost grows with every row matched.
   */
  async function telling(runner: QueryRunner, terms: readonly string[]): Promise<string[]> {
    if (postgres || terms.length < 2) return [...terms];
    const counts = await vocabulary.rows(runner, { terms: JSON.stringify(terms) });
    const total = counts.find((row) => row.col === 'store')?.doc ?? 0;
    const held = new Map(
      counts.filter((row) => row.col === 'search_terms').map((row) => [row.term, Number(row.doc)]),
    );
    const common = Math.max(total * COMMON_SHARE, COMMON_AT_LEAST);
    const rare = terms.filter((term) => (held.get(term) ?? 0) <= common);
    // Kept only when a rarer word is held by some memory: else every word is what there is.
    return rare.some((term) => (held.get(term) ?? 0) > 0) ? rare : [...terms];
  }

  return {
    /**
     * The store's active memories that hold every group of the query, or, when none does, any
     * of its terms. Empty for a query without terms.
     */
    async find(
      runner: QueryRunner,
      scopeId: string,
      query: AnalyzedQuery,
      options: { category: string | null; limit: number },
    ): Promise<FoundMemory[]> {
      if (query.groups.length === 0) return [];
      const params = { scopeId, category: options.category, limit: options.limit };
      const all = await run(runner, { ...params, match: allOf(query, language) });
      const terms = query.groups.reduce((n, group) => n + group.terms.length, 0);
      if (all.length > 0 || terms < 2) return all;
      if (postgres) {
        const any = eachTerm(query, language);
        return numbers(await searchAnyPostgres.rows(runner, { ...params, terms: any }));
      }
      const kept = new Set(await telling(runner, allTerms(query)));
      const any = eachTerm(query, language, (term) => kept.has(term));
      return run(runner, { ...params, match: any.join(language.or) });
    },
  };
}

export type MemorySearchRepository = ReturnType<typeof createMemorySearchRepository>;
