import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDurability } from './durability.ts';
import { createGroupCommit } from './group-commit.ts';
import {
  createLocalNotifications,
  createPostgresNotifications,
  type Notifications,
} from './notifications.ts';
import { withNamedStatements } from './postgres-named-statements.ts';
import { retryOnConflict } from './postgres-retry.ts';
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
   * SQLite: the store's file, which a connection of another thread can open to read (WAL); a
   * worker's reads see every commit made before they start (sqlite/read-workers.ts). Undefined
   * on PostgreSQL.
   */
  readonly file?: string;
  /**
   * Runs compiled queries (prepared-query.ts) outside any transaction: the latest committed
   * state. On SQLite a read-only connection of its own, on PostgreSQL the pool.
   */
  readonly reader: QueryRunner;
  /**
   * Runs `run`, whose reads on `reader` start at once (each statement run as it is called), as
   * one read: on SQLite in one read transaction, so that they see one snapshot and the file's
   * locks are taken once for all of them instead of once each; on PostgreSQL as they come (a
   * statement is a round trip there: reads go together in one statement instead).
   */
  readTogether<T>(run: () => T): T;
  /**
   * Opens a read of many statements that all see the state committed when its first one ran,
   * however long it stays open, without holding up any writer: an export streamed for minutes.
   * SQLite: a connection of its own in a read transaction; PostgreSQL: a pooled connection in a
   * REPEATABLE READ, READ ONLY transaction. Close it as soon as it is done: it holds a pool
   * connection (PostgreSQL), or keeps the log from being checkpointed past it (SQLite).
   */
  openSnapshot(): Promise<Snapshot>;
  /**
   * Runs `job` in a write transaction and settles once it committed and is on disk: the way to
   * write anything that is acknowledged. On SQLite, concurrent jobs share a commit (see
   * group-commit.ts); on PostgreSQL each job is its own transaction, run again when the server
   * aborts it for a deadlock or serialization failure (postgres-retry.ts): a job may run more
   * than once, and must do nothing but query `trx`. Inside a job, query through `trx` only:
   * SQLite has one writing connection, and a query on `db` would wait for the very transaction
   * that waits for it.
   */
  write<T>(job: (trx: Kysely<Tables>) => Promise<T>): Promise<T>;
  /**
   * Settles once every commit made so far is on disk; undefined when none is pending. An answer
   * that may show what a commit changed waits for it: nothing is revealed that a power cut could
   * take back. Always undefined on PostgreSQL, whose commits are durable when they return.
   */
  durable(): Promise<void> | undefined;
  /**
   * Runs `run` on a connection of its own that has no statement time limit: a migration
   * rewrites whole tables and builds indexes, which on a large store takes longer than any
   * request may. SQLite has no such limit, and runs it on `db`.
   */
  withoutTimeLimit<T>(run: (db: Kysely<Tables>) => Promise<T>): Promise<T>;
  /**
   * Makes every commit so far durable, including writes made through `db` outside `write`
   * (start-up, the CLI): call it before telling anyone about them.
   */
  sync(): Promise<void>;
  /** Wake-ups between the processes that share the store (notifications.ts). */
  readonly notifications: Notifications;
  close(): Promise<void>;
}

/** A read that sees one committed state (`Database.openSnapshot`). */
export interface Snapshot {
  readonly reader: QueryRunner;
  /** Ends the read. Called once, whether the read finished or was abandoned. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL: the most connections the pool opens. Default 10. */
  readonly poolSize?: number;
  /**
   * PostgreSQL: the longest a statement may run, waiting for locks included, before the server
   * cancels it (`57014`). Default 5000.
   */
  readonly statementTimeoutMs?: number;
  /**
   * PostgreSQL: called when a pooled connection fails while idle (the server restarted, or
   * terminated its backend). The pool has already dropped it and opens a fresh one on the next
   * checkout; this only reports it. Without it, such failures pass silently; a connection that
   * fails while in use fails its query instead, which reports it.
   */
  readonly onIdleConnectionError?: (error: Error) => void;
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
  const reader = createSqliteReader(readerConnection);
  // Commits are synced beside the event loop (durability.ts), not inside COMMIT, which would
  // stop every request for the length of an fsync.
  const wal = createWalSync(file);
  const durability = createDurability(() => wal.sync());
  const write = createGroupCommit(db, { durable: () => durability.committed() });
  const notifications = createLocalNotifications();
  return {
    db,
    dialect: 'sqlite',
    file,
    reader,
    readTogether: (run) => reader.together(run),
    openSnapshot: async () => {
      // A small page cache: the snapshot reads each page once, and the process's memory should
      // not grow by the writer's cache for every export running.
      const connection = openSqliteFile(file, { readOnly: true, cacheKib: SNAPSHOT_CACHE_KIB });
      connection.exec('begin');
      return {
        reader: createSqliteReader(connection),
        close: async () => {
          connection.exec('commit');
          connection.close();
        },
      };
    },
    write,
    durable: () => durability.pending(),
    withoutTimeLimit: (run) => run(db),
    sync: () => wal.sync(),
    notifications,
    close: async () => {
      await notifications.close();
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

/** The longest a connection may take to open, and a request may wait for a free one. */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * How much longer than the statement timeout the client waits for an answer before giving up on
 * its own: the server cancels a slow statement itself, so this only fires when the network
 * swallows packets (no reset, no answer), which would otherwise hold the request for minutes.
 */
const ANSWER_GRACE_MS = 1000;
/**
 * The server ends a session left inside a transaction this long without a statement: a process
 * stalled or cut off mid-transaction must not hold its row locks until TCP notices.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
/**
 * How long a snapshot's transaction may wait for its reader (the client of an export taking
 * its lines) before the server ends it, and the export with it.
 */
const SNAPSHOT_IDLE_TIMEOUT_MS = 60_000;
/** A snapshot connection's page cache on SQLite, in KiB (SQLite's own default is 2 MiB). */
const SNAPSHOT_CACHE_KIB = 2048;
/** TCP keep-alive on idle connections, so NATs and load balancers keep them open. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000;

/** A pool's settings apart from its size and time limits. */
function postgresConfig(url: string): pg.PoolConfig {
  return {
    connectionString: url,
    application_name: 'mnemo',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? Number
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  };
}

const ignore = () => {};

/**
 * A pool of `settings` whose broken connections never end the process. A connection that breaks
 * emits 'error' on its client, and an 'error' nobody listens to ends the process. In use, the
 * failure also reaches the query (and its request, as a 503), and the broken client is dropped
 * when released: the listener only keeps the process alive. Idle, the pool drops the client
 * itself and re-emits the error on the pool: reported to `onIdleError`, then nothing to do.
 */
function openPool(settings: pg.PoolConfig, onIdleError: (error: Error) => void = ignore): pg.Pool {
  const pool = new pg.Pool(settings);
  pool.on('connect', (client) => client.on('error', ignore));
  pool.on('error', onIdleError);
  return pool;
}

function createPostgres(url: string, options: DatabaseOptions): Database {
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000;
  const pool = openPool(
    {
      ...postgresConfig(url),
      max: options.poolSize ?? 10,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + ANSWER_GRACE_MS,
    },
    options.onIdleConnectionError,
  );
  const db = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: withNamedStatements(pool) }),
  });
  const notifications = createPostgresNotifications(
    postgresConfig(url),
    async (channel, payload) => {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
  );
  return {
    db,
    dialect: 'postgres',
    reader: db,
    readTogether: (run) => run(),
    openSnapshot: async () => {
      const trx = await db
        .startTransaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute();
      // The snapshot waits on its reader between statements: a slow reader, not a stalled
      // process, so it gets longer than the pool's idle limit before the server ends it. Its
      // reads are pages in an index's order: with sorts off, a planner whose statistics are
      // stale (a store filled since the last analyze) still walks that index, where it would
      // sort the store again for every page (40 ms a page at 20,000 memories, measured).
      try {
        await sql`select set_config('idle_in_transaction_session_timeout', ${String(SNAPSHOT_IDLE_TIMEOUT_MS)}, true),
          set_config('enable_sort', 'off', true)`.execute(trx);
      } catch (error) {
        // The connection goes back to the pool either way, never left inside the transaction.
        await trx
          .rollback()
          .execute()
          .catch(() => undefined);
        throw error;
      }
      return { reader: trx, close: () => trx.commit().execute() };
    },
    write: (job) => retryOnConflict(() => db.transaction().execute(job)),
    durable: () => undefined,
    withoutTimeLimit: async (run) => {
      const unlimited = openPool({ ...postgresConfig(url), max: 1 });
      const single = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: unlimited }) });
      try {
        return await run(single);
      } finally {
        await single.destroy();
      }
    },
    sync: async () => {},
    notifications,
    close: async () => {
      await notifications.close();
      await db.destroy();
    },
  };
}
