import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

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

export function openSqliteFile(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  // WAL lets the CLI and readers work beside the server; FULL fsyncs every commit, so an
  // acknowledged write survives a power cut, not only a crash.
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = full;
    pragma busy_timeout = 5000;
    pragma foreign_keys = on;
  `);
  return db;
}
