import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createDurability } from './durability.ts';
import { createGroupCommit } from './group-commit.ts';
import type { QueryRunner } from './prepared-query.ts';
import {
  createNodeSqliteDatabase,
  createSqliteReader,
  openSqliteFile,
} from './sqlite/node-sqlite-database.ts';
import { ImmediateSqliteDialect } from './sqlite/sqlite-dialect.ts';
import { createWalSync } from './sqlite/wal-sync.ts';
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
   * Runs `job` in a write transaction and settles once it committed and is on disk: the way to
   * write anything that is acknowledged. On SQLite, concurrent jobs share a commit (see
   * group-commit.ts); on PostgreSQL each job is its own transaction. Inside a job, query through
   * `trx` only: SQLite has one writing connection, and a query on `db` would wait for the very
   * transaction that waits for it.
   */
  write<T>(job: (trx: Kysely<Tables>) => Promise<T>): Promise<T>;
  /**
   * Settles once every commit made so far is on disk; undefined when none is pending. An answer
   * that may show what a commit changed waits for it: nothing is revealed that a power cut could
   * take back. Always undefined on PostgreSQL, whose commits are durable when they return.
   */
  durable(): Promise<void> | undefined;
  /**
   * Makes every commit so far durable, including writes made through `db` outside `write`
   * (start-up, the CLI): call it before telling anyone about them.
   */
  sync(): Promise<void>;
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
  const raw = openSqliteFile(file, { syncOnCommit: false });
  const db = new Kysely<Tables>({
    dialect: new ImmediateSqliteDialect({ database: createNodeSqliteDatabase(raw) }),
  });
  // Opened after the writer: it has put the file in WAL mode and created its side files.
  const readerConnection = openSqliteFile(file, { readOnly: true });
  // Commits are synced beside the event loop (durability.ts), not inside COMMIT, which would
  // stop every request for the length of an fsync.
  const wal = createWalSync(file);
  const durability = createDurability(() => wal.sync());
  const write = createGroupCommit(db, { durable: () => durability.committed() });
  return {
    db,
    dialect: 'sqlite',
    reader: createSqliteReader(readerConnection),
    write,
    durable: () => durability.pending(),
    sync: () => wal.sync(),
    close: async () => {
      await durability.drained();
      // Writes made through `db` outside `write` (start-up, the CLI) are synced here.
      await wal.sync().catch(() => undefined);
      await wal.close();
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
    durable: () => undefined,
    sync: async () => {},
    close: () => db.destroy(),
  };
}
