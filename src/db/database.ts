import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createGroupCommit } from './group-commit.ts';
import type { QueryRunner } from './prepared-query.ts';
import {
  createNodeSqliteDatabase,
  createSqliteReader,
  openSqliteFile,
} from './sqlite/node-sqlite-database.ts';
import { ImmediateSqliteDialect } from './sqlite/sqlite-dialect.ts';
import type { Tables } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

/** The store: a Kysely handle plus the one way to run a write transaction on it. */
export interface Database {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  /**
   * Runs compiled queries (prepared-query.ts) outside any transaction: the latest committed
   * state. On SQLite a read-only connection of its own, on PostgreSQL the pool.
   */
  readonly reader: QueryRunner;
  /**
   * Runs `job` in a write transaction and settles after it committed. On SQLite, concurrent
   * jobs share a commit (see group-commit.ts); on PostgreSQL each job is its own transaction.
   * Inside a job, query through `trx` only: SQLite has one connection, and a query on `db`
   * would wait for the very transaction that waits for it.
   */
  write<T>(job: (trx: Kysely<Tables>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL pool size. */
  readonly poolSize?: number;
  /** PostgreSQL statement timeout in milliseconds. */
  readonly statementTimeoutMs?: number;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith('sqlite:')) return createSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return createPostgres(url, options);
  }
  throw new Error(`unsupported database URL: ${url.split(':')[0]}:…`);
}

function createSqlite(path: string): Database {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  const raw = openSqliteFile(file);
  const db = new Kysely<Tables>({
    dialect: new ImmediateSqliteDialect({ database: createNodeSqliteDatabase(raw) }),
  });
  // Opened after the writer: it has put the file in WAL mode and created its side files.
  const readerConnection = openSqliteFile(file, { readOnly: true });
  const write = createGroupCommit(db);
  return {
    db,
    dialect: 'sqlite',
    reader: createSqliteReader(readerConnection),
    write,
    close: async () => {
      await db.destroy();
      readerConnection.close();
    },
  };
}

// bigint columns hold milliseconds and counters, far below 2^53: read them as numbers.
const INT8_OID = 20;

function createPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 5000,
    connectionTimeoutMillis: 5000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? Number
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    reader: db,
    write: (job) => db.transaction().execute(job),
    close: () => db.destroy(),
  };
}
