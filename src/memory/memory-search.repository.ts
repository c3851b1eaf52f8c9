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
 * A word is common when more than this share of the index's memories hold it, at least
 * `COMMON_AT_LEAST` (below that, matching it costs little whatever it weighs), or more than
 * `COMMON_COUNTED` (past which counting costs more than it tells).
 */
const COMMON_SHARE = 0.1;
const COMMON_AT_LEAST = 100;
const COMMON_COUNTED = 1000;
/** Distinct words of a query that are counted; a longer query's others are taken as rare. */
const COUNTED_TERMS = 32;
/**
 * On SQLite, a query whose words at most this many rows of the whole index hold is run across
 * the index; past it, in the store (a cost that grows with the store, but not with the rows).
 */
const ACROSS_AT_MOST = 200;

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
  // SQLite has two ways to a store's best rows, and takes the cheaper (plan below). `bm25`
  // weighs the `store` column 0: it names the store, it is no word of the memory. CROSS JOIN
  // keeps the index first: with the limit bound, the planner would rather walk the store's
  // memories and index the ranked rows on the fly (250 ms instead of 21 for a common word).
  // In the store: its token AND the words, inside MATCH, so FTS5 reads that store's rows only;
  // without a category the best are chosen in the index alone and only they are joined to their
  // memories (ties: the memory indexed last first). Reading the store's token costs in
  // proportion to the store: for rare words, the other way is cheaper.
  const inStore = prepareQuery((p: SearchParams) =>
    compiled(
      sql<FoundMemory>`select m.id, m.content, m.category, m.created_at, m.updated_at, f.score
        from (
          select rowid, -bm25(memory_search, 1.0, 0.0) as score from memory_search
          where memory_search match ${p.match}
          order by score desc, rowid desc
          limit ${p.limit}
        ) as f
          cross join memory_search_keys as k on k.key = f.rowid
          cross join memories as m on m.id = k.memory_id
        where m.scope_id = ${p.scopeId} and m.deleted_at is null
        order by f.score desc, f.rowid desc`,
    ),
  );
  // Across the index: every row holding the words, each joined to its memory, the store's kept.
  // Cheap when few rows of the whole database hold them; also the way with a category.
  const acrossStores = prepareQuery((p: SearchParams) =>
    compiled(
      sql<FoundMemory>`select m.id, m.content, m.category, m.created_at, m.updated_at,
          -bm25(memory_search, 1.0, 0.0) as score
        from memory_search
          cross join memory_search_keys as k on k.key = memory_search.rowid
          cross join memories as m on m.id = k.memory_id
        where memory_search match ${p.match}
          and m.scope_id = ${p.scopeId} and m.deleted_at is null
          and (${p.category} is null or m.category = ${p.category})
        order by score desc, k.key desc
        limit ${p.limit}`,
    ),
  );
  // How many rows of the whole index hold each of n terms, counting no further than
  // `COMMON_COUNTED` + 1 (a count costs what it counts, however many rows hold the word), and
  // about how many memories the index holds: keys only grow, so the last is the number of every
  // memory ever indexed, purged ones included. One statement for all: one call to the store.
  const countings = new Map<number, ReturnType<typeof counting>>();
  const counting = (n: number) =>
    prepareQuery((p: Record<string, string>) =>
      compiled(
        sql<Record<string, number | null>>`select ${sql.join(
          Array.from(
            { length: n },
            (_, i) => sql`(select count(*) from (select rowid from memory_search
              where memory_search match ${p[`m${i}`]} limit ${COMMON_COUNTED + 1})) as ${sql.ref(`c${i}`)}`,
          ),
        )}, (select max(key) from memory_search_keys) as size`,
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
  /**
   * How many memories of the whole index hold each term (the query's last as a prefix; the
   * first `COUNTED_TERMS` distinct ones, the others taken as rare), and from how many on a word
   * counts as common.
   */
  async function counted(runner: QueryRunner, query: AnalyzedQuery): Promise<TermCounts> {
    const terms = allTerms(query);
    const last = terms.length - 1;
    const matches = new Map<string, string>();
    for (const [i, term] of terms.entries()) {
      if (matches.size >= COUNTED_TERMS && !matches.has(term)) continue;
      if (!matches.has(term) || i === last) {
        matches.set(term, `search_terms : ${fts5.term(term, i === last)}`);
      }
    }
    const n = matches.size;
    const statement = countings.get(n) ?? counting(n);
    countings.set(n, statement);
    const params = Object.fromEntries([...matches.values()].map((match, i) => [`m${i}`, match]));
    const row = (await statement.first(runner, params)) ?? {};
    const held = new Map([...matches.keys()].map((term, i) => [term, Number(row[`c${i}`] ?? 0)]));
    const size = Number(row.size ?? 0);
    return {
      held,
      common: Math.min(Math.max(size * COMMON_SHARE, COMMON_AT_LEAST), COMMON_COUNTED),
    };
  }

  /** SQLite: one of the two ways, by how many rows of the whole index `rows` says may match. */
  async function sqlite(runner: QueryRunner, params: SearchParams, rows: number) {
    const words = `search_terms : (${params.match})`;
    if (params.category !== null || rows <= ACROSS_AT_MOST) {
      return numbers(await acrossStores.rows(runner, { ...params, match: words }));
    }
    const store = `store : "s${params.scopeId.replaceAll('-', '')}"`;
    return numbers(await inStore.rows(runner, { ...params, match: `${store} AND ${words}` }));
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
      const terms = query.groups.reduce((n, group) => n + group.terms.length, 0);
      if (postgres) {
        const all = numbers(
          await searchPostgres.rows(runner, { ...params, match: allOf(query, tsquery) }),
        );
        if (all.length > 0 || terms < 2) return all;
        const any = eachTerm(query, tsquery);
        return numbers(await searchAnyPostgres.rows(runner, { ...params, terms: any }));
      }
      const counts = await counted(runner, query);
      const all = await sqlite(
        runner,
        { ...params, match: allOf(query, fts5) },
        everyGroupRows(query, counts),
      );
      if (all.length > 0 || terms < 2) return all;
      const kept = telling(allTerms(query), counts);
      const any = eachTerm(query, fts5, (term) => kept.has(term));
      const rows = [...kept].reduce((sum, term) => sum + (counts.held.get(term) ?? 0), 0);
      return sqlite(runner, { ...params, match: any.join(fts5.or) }, rows);
    },
  };
}

/** How many memories of the whole index hold each term, up to `common` and one more. */
interface TermCounts {
  readonly held: ReadonlyMap<string, number>;
  /** Past this many, a word is common. */
  readonly common: number;
}

/**
 * At most how many rows an every-word query may match: a group matches no more than its rarest
 * word (or its joined form), and all of them together no more than the rarest group.
 */
function everyGroupRows(query: AnalyzedQuery, counts: TermCounts): number {
  const held = (term: string) => counts.held.get(term) ?? 0;
  return Math.min(
    ...query.groups.map(
      (group) =>
        Math.min(...group.terms.map(held)) + (group.joined === undefined ? 0 : held(group.joined)),
    ),
  );
}

/**
 * The terms of an any-word search worth matching: a common word (`counted`) is left out while
 * a rarer one that some memory holds remains — it would match much of the store and weigh
 * little in BM25, whose cost grows with every row matched.
 */
function telling(terms: readonly string[], counts: TermCounts): Set<string> {
  const held = (term: string) => counts.held.get(term) ?? 0;
  const rare = terms.filter((term) => held(term) <= counts.common);
  // Kept only when a rarer word is held by some memory: else every word is what there is.
  return new Set(rare.some((term) => held(term) > 0) ? rare : terms);
}

export type MemorySearchRepository = ReturnType<typeof createMemorySearchRepository>;
