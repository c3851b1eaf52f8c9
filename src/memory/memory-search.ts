import type { Database } from '../db/database.ts';
import { createReadWorkers, type ReadWorkersOptions } from '../db/sqlite/read-workers.ts';
import type { AnalyzedQuery } from '../platform/search-analyzer.ts';
import { createMemorySearchRepository, type FoundMemory } from './memory-search.repository.ts';

/** One lexical search of one store: what the service asks, and what a worker is sent. */
export interface SearchInput {
  readonly scopeId: string;
  readonly query: AnalyzedQuery;
  readonly category: string | null;
  readonly limit: number;
}

/**
 * Lexical search of a store's memories, best first (memory-search.repository.ts), wherever it
 * runs: on SQLite in worker threads, on PostgreSQL in this one (its work is the server's).
 */
export interface MemorySearch {
  /**
   * The store's active memories that hold some word of the query, best first. A search whose
   * `signal` aborts before it starts is not run.
   */
  find(input: SearchInput, signal?: AbortSignal): Promise<FoundMemory[]>;
  /** Ends the workers, once they have answered what they run. */
  close(): Promise<void>;
}

/**
 * A search's statements and ranking on `store`'s reader: the one function that both this thread
 * (PostgreSQL) and a SQLite worker (memory-search.worker.ts, over its own connection) run.
 */
export function searchOn(store: Pick<Database, 'db' | 'dialect' | 'reader'>) {
  const repository = createMemorySearchRepository(store);
  return ({ scopeId, query, category, limit }: SearchInput): Promise<FoundMemory[]> =>
    repository.find(store.reader, scopeId, query, { category, limit });
}

/**
 * Search on SQLite runs in worker threads, each with a read-only connection of its own to the
 * store's file: node:sqlite is synchronous, and a search of a large store (several statements,
 * then the ranking) would hold the event loop, and every request behind it, for tens of ms.
 * The workers start with the first search. On PostgreSQL the statements run on the server and
 * the ranking here.
 */
export function createMemorySearch(
  database: Database,
  options: Omit<ReadWorkersOptions, 'file' | 'module'> = {},
): MemorySearch {
  if (database.file === undefined) {
    const find = searchOn(database);
    return { find: (input) => find(input), close: async () => {} };
  }
  const workers = createReadWorkers<SearchInput, FoundMemory[]>({
    ...options,
    file: database.file,
    module: new URL('./memory-search.worker.ts', import.meta.url),
  });
  return { find: (input, signal) => workers.run(input, signal), close: () => workers.close() };
}
