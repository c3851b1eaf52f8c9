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
 * connection would queue every read behind it) and never sees a write before it commits.
 */
export function createSqliteReader(db: DatabaseSync): QueryRunner {
  const statements = createNodeSqliteDatabase(db);
  return {
    async executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> {
      const statement = statements.prepare(query.sql);
      if (!statement.reader) throw new Error(`the reader does not write: ${query.sql}`);
      return { rows: statement.all(query.parameters) as R[] };
    },
  };
}

export function openSqliteFile(path: string, options: { readOnly?: boolean } = {}): DatabaseSync {
  const readOnly = options.readOnly ?? false;
  const db = new DatabaseSync(path, { readOnly });
  db.exec('pragma busy_timeout = 5000');
  if (readOnly) return db;
  // WAL lets the CLI and readers work beside the server; FULL fsyncs every commit, so an
  // acknowledged write survives a power cut, not only a crash.
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = full;
    pragma foreign_keys = on;
  `);
  return db;
}
