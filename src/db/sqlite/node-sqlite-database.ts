import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { CompiledQuery, QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';
import type { QueryRunner } from '../prepared-query.ts';

/**
 * Presents `node:sqlite`'s DatabaseSync in the better-sqlite3 shape that Kysely's SQLite dialect
 * takes. Statements are prepared once per SQL text: Kysely prepares on every query, and
 * preparing costs more than running a point lookup.
 */
export function createNodeSqliteDatabase(db: DatabaseSync, cacheSize = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) return cached;
      const statement = wrap(db.prepare(sql));
      if (cache.size >= cacheSize) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

function wrap(statement: StatementSync): SqliteStatement {
  const reader = statement.columns().length > 0;
  return {
    reader,
    all: (parameters) => statement.all(...(parameters as SQLInputValue[])),
    run: (parameters) => statement.run(...(parameters as SQLInputValue[])),
    iterate: (parameters) => statement.iterate(...(parameters as SQLInputValue[])),
  };
}

/**
 * Runs compiled queries that return rows on a connection of its own. In WAL mode it reads the
 * last committed state: it never waits for the writer's transaction (Kysely's single SQLite
 * connection would queue every read behind it) and never sees a write before it commits. Each
 * statement runs as `executeQuery` is called, not later.
 */
export function createSqliteReader(db: DatabaseSync): SqliteReader {
  const statements = createNodeSqliteDatabase(db);
  return {
    async executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> {
      const statement = statements.prepare(query.sql);
      if (!statement.reader) throw new Error(`the reader does not write: ${query.sql}`);
      return { rows: statement.all(query.parameters) as R[] };
    },
    together(run) {
      if (db.isTransaction) return run();
      // A deferred transaction that only reads: one snapshot, and one lock of the file's for
      // every statement of `run` (each statement alone takes and drops its own).
      db.exec('begin');
      try {
        return run();
      } finally {
        db.exec('commit');
      }
    },
  };
}

export interface SqliteReader extends QueryRunner {
  /** Runs `run` in one read transaction: the statements it runs see one snapshot. */
  together<T>(run: () => T): T;
}

export interface OpenOptions {
  readonly readOnly?: boolean;
  /**
   * true: every COMMIT fsyncs the log before it returns (synchronous = FULL). false: COMMIT
   * only writes the log (synchronous = NORMAL, which SQLite documents as safe from corruption in
   * WAL mode; checkpoints still sync), and the caller syncs it before acknowledging anything.
   */
  readonly syncOnCommit?: boolean;
  /** The page cache, in KiB. Default 64 MiB. */
  readonly cacheKib?: number;
}

export function openSqliteFile(path: string, options: OpenOptions = {}): DatabaseSync {
  const readOnly = options.readOnly ?? false;
  const db = new DatabaseSync(path, { readOnly });
  // 64 MiB of page cache (SQLite's default is 2 MiB): index lookups at random keys (UUIDs,
  // fold hashes) stay in memory instead of reading pages back from the file on every miss.
  db.exec(`pragma busy_timeout = 5000; pragma cache_size = -${options.cacheKib ?? 65536}`);
  if (readOnly) return db;
  // WAL lets the CLI and the reader work beside the writer.
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = ${(options.syncOnCommit ?? true) ? 'full' : 'normal'};
    pragma foreign_keys = on;
  `);
  return db;
}
