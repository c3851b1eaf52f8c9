/**
 * The side of read-workers.ts that runs in a worker thread: the thread's own read-only
 * connection to the store's file, and the loop that answers the reads it is sent.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Kysely, SqliteDialect } from 'kysely';
import type { Tables } from '../tables.ts';
import {
  createNodeSqliteDatabase,
  createSqliteReader,
  openSqliteFile,
  type SqliteReader,
} from './node-sqlite-database.ts';

/**
 * The niceness a read worker's thread takes (the event loop's stays 0). When the worker and the
 * loop want the same CPU, the scheduler gives the loop about nine tenths of it and lets it in at
 * once: a long read runs in the time requests leave, instead of holding them up for whole
 * time slices.
 */
const READ_WORKER_NICENESS = 10;

/**
 * Lowers this thread's priority, not the process's: on Linux a thread has an id of its own
 * (`/proc/thread-self` → `<pid>/task/<tid>`), which setpriority(2) takes as one thread. Where
 * that is missing or refused, the thread keeps the process's priority.
 */
function yieldToTheLoop(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // A process started nicer than that stays so: only its loop's share is given away.
    if (Number.isInteger(tid) && tid > 0) {
      setPriority(tid, Math.max(READ_WORKER_NICENESS, getPriority(tid)));
    }
  } catch {
    // Not Linux, or not allowed: the reads run at the loop's priority.
  }
}

/** What a read worker is started with. */
export interface ReadWorkerData {
  /** The SQLite file, as the writer opened it (WAL). */
  readonly file: string;
}

/** A read, as sent to a worker. `close` ends the worker once the reads before it are answered. */
export type ReadMessage = { readonly id: number; readonly input: unknown } | 'close';

/** A read's answer, as a worker sends it back. */
export type ReadReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: SentError };

/**
 * An error as it crosses between threads. Structured clone keeps an Error's message and stack
 * but not its own fields, and `code` and `errcode` are what db/availability.ts reads a SQLite
 * error by (SQLITE_BUSY is a 503, anything else a 500).
 */
export interface SentError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly code: unknown;
  readonly errcode: unknown;
  readonly errstr: unknown;
}

export function sendableError(error: unknown): SentError {
  const e = error instanceof Error ? error : new Error(String(error));
  const { code, errcode, errstr } = e as { code?: unknown; errcode?: unknown; errstr?: unknown };
  return { name: e.name, message: e.message, stack: e.stack, code, errcode, errstr };
}

/** The error a worker sent, with the fields it had. */
export function receivedError(sent: SentError): Error {
  const error = new Error(sent.message);
  error.name = sent.name;
  if (sent.stack !== undefined) error.stack = sent.stack;
  for (const field of ['code', 'errcode', 'errstr'] as const) {
    if (sent[field] !== undefined) Object.assign(error, { [field]: sent[field] });
  }
  return error;
}

/**
 * The worker's store: Kysely over its connection (to compile queries; the connection cannot
 * write), and the reader that runs them.
 */
export interface ReadOnlyStore {
  readonly db: Kysely<Tables>;
  readonly dialect: 'sqlite';
  readonly reader: SqliteReader;
}

/**
 * Answers the reads this worker thread is sent: `start` is given the thread's store once and
 * returns the read each message runs. The connection is read-only (SQLite refuses any write on
 * it) and its own: in WAL mode each statement reads the last commit made when it starts, so a
 * read sees every write acknowledged before it was asked.
 *
 * @example
 * // memory-search.worker.ts: `searchOn(store)` returns the search, run on `store.reader`.
 * serveReads(searchOn);
 */
export function serveReads<I, O>(start: (store: ReadOnlyStore) => (input: I) => Promise<O>): void {
  const port = parentPort;
  if (!port) throw new Error('serveReads runs in a worker thread');
  const { file } = workerData as ReadWorkerData;
  yieldToTheLoop();
  const connection = openSqliteFile(file, { readOnly: true });
  const store: ReadOnlyStore = {
    db: new Kysely<Tables>({
      dialect: new SqliteDialect({ database: createNodeSqliteDatabase(connection) }),
    }),
    dialect: 'sqlite',
    reader: createSqliteReader(connection),
  };
  const read = start(store);
  // One read at a time, in the order sent: `close` comes after every read sent before it.
  let turn = Promise.resolve();
  port.on('message', (message: ReadMessage) => {
    turn = turn.then(async () => {
      if (message === 'close') {
        // The port closed, nothing keeps the thread: it ends once this returns.
        connection.close();
        port.close();
        return;
      }
      try {
        port.postMessage({ id: message.id, ok: true, value: await read(message.input as I) });
      } catch (error) {
        port.postMessage({ id: message.id, ok: false, error: sendableError(error) });
      }
    });
  });
}
