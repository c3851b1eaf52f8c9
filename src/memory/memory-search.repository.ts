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

/** Any of the terms: for a question whose words are not all in any one memory. */
function anyOf(query: AnalyzedQuery, language: QueryLanguage): string {
  const terms = query.groups.flatMap((group: TermGroup) =>
    group.joined === undefined ? group.terms : [...group.terms, group.joined],
  );
  const last = terms.length - 1;
  return terms.map((term, i) => language.term(term, i === last)).join(language.or);
}

/**
 * Lexical search of one store's active memories, best first: SQLite's FTS5 ranked by BM25, or
 * PostgreSQL's full text ranked by cover density (`ts_rank_cd`). Both index the terms that
 * memory.repository.ts writes with each memory.
 */
export function createMemorySearchRepository(database: Database) {
  const { db } = database;
  const postgres = database.dialect === 'postgres';
  const language = postgres ? tsquery : fts5;

  // Engine-specific SQL, compiled once like the repository's other queries.
  const compiled = <Row>(raw: RawBuilder<Row>) => ({ compile: () => raw.compile(db) });
  const search = prepareQuery((p: SearchParams) =>
    compiled(
      postgres
        ? sql<FoundMemory>`select id, content, category, created_at, updated_at,
          ts_rank_cd(search_vector, query) as score
        from memories, to_tsquery('simple', ${p.match}) as query
        where scope_id = ${p.scopeId} and deleted_at is null and search_vector @@ query
          and (cast(${p.category} as text) is null or category = ${p.category})
        order by score desc, updated_at desc, id
        limit ${p.limit}`
        : sql<FoundMemory>`select m.id, m.content, m.category, m.created_at, m.updated_at,
          -bm25(memory_search) as score
        from memory_search
          join memory_search_keys as k on k.key = memory_search.rowid
          join memories as m on m.id = k.memory_id
        where memory_search match ${p.match}
          and m.scope_id = ${p.scopeId} and m.deleted_at is null
          and (${p.category} is null or m.category = ${p.category})
        order by score desc, m.updated_at desc, m.id
        limit ${p.limit}`,
    ),
  );

  const run = async (runner: QueryRunner, params: SearchParams) =>
    (await search.rows(runner, params)).map((row) => ({
      ...row,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      score: Number(row.score),
    }));

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
      return run(runner, { ...params, match: anyOf(query, language) });
    },
  };
}

export type MemorySearchRepository = ReturnType<typeof createMemorySearchRepository>;
