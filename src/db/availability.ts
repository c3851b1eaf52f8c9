import { CompiledQuery } from 'kysely';
import type { Database } from './database.ts';
import { ReadWorkerUnavailable } from './sqlite/read-workers.ts';

/**
 * Node's socket and resolver errors: the store's host cannot be reached, or the connection to it
 * broke. The process started on this store, so a name that no longer resolves is an outage too.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The `pg` driver's own errors, which carry no code: a connection that broke mid-use, a connect
 * that timed out (client: `timeout expired`; pool: the wrapper with it as cause), no client free
 * in the pool in time, a query whose answer never came (`query_timeout`: the network swallows
 * packets), and any later use of a client whose connection broke. `Connection terminated` alone
 * is the driver closing on our request (shutdown): not here.
 */
const PG_DRIVER_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout expired',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
]);

/**
 * PostgreSQL's SQLSTATEs of a server that is going away, not yet back, full, or too slow
 * (Appendix A of its manual); class 08, connection exceptions, is matched as a class.
 */
const PG_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '57P01', // admin_shutdown: the server stops, or the backend was terminated
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting or shutting down
  '53300', // too_many_connections
]);
const PG_CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/** SQLite's primary result code SQLITE_BUSY (a lock held past busy_timeout), and its extended forms. */
const SQLITE_BUSY = 5;

/** How deep `cause` chains and aggregates are followed. */
const MAX_DEPTH = 4;

/**
 * Whether `error` means the store cannot be reached or did not answer in time — a condition a
 * client should retry shortly (503) — rather than a bug (500). The one place that knows the
 * drivers' shapes: Node socket codes, `pg`'s messages, PostgreSQL SQLSTATEs, SQLite's
 * SQLITE_BUSY, a SQLite read worker that did not answer (sqlite/read-workers.ts). Follows
 * `cause` and AggregateError (a host with several addresses).
 *
 * @example
 * if (isStoreUnavailable(error)) return sendError(reply, 503, 'the store is unavailable; retry shortly');
 */
export function isStoreUnavailable(error: unknown): boolean {
  return unavailable(error, 0);
}

function unavailable(error: unknown, depth: number): boolean {
  if (!(error instanceof Error) || depth > MAX_DEPTH) return false;
  if (error instanceof ReadWorkerUnavailable) return true;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || PG_SQLSTATES.has(code)) return true;
    if (PG_CONNECTION_EXCEPTION.test(code)) return true;
    // node:sqlite: `errcode` is SQLite's extended result code; its low byte the primary one.
    if (
      code === 'ERR_SQLITE_ERROR' &&
      typeof errcode === 'number' &&
      (errcode & 0xff) === SQLITE_BUSY
    ) {
      return true;
    }
  }
  if (PG_DRIVER_MESSAGES.has(error.message)) return true;
  if (error instanceof AggregateError && error.errors.some((e) => unavailable(e, depth + 1))) {
    return true;
  }
  return unavailable(error.cause, depth + 1);
}

const SELECT_ONE = CompiledQuery.raw('select 1 as one');

/**
 * What readiness asks of a store: that its commits reach the disk (a SQLite store whose fsync
 * failed refuses every write until restarted) and that it answers a query.
 */
export function readinessCheck(
  database: Pick<Database, 'reader' | 'durable'>,
): () => Promise<unknown> {
  return async () => {
    const synced = database.durable();
    if (synced) await synced;
    return database.reader.executeQuery(SELECT_ONE);
  };
}

/**
 * A readiness probe: resolves true when `check` succeeds within `timeoutMs`, false when it fails
 * or is late. A check still waiting for its answer is shared by the calls that arrive meanwhile,
 * so a store that hangs holds one connection for probes, not one per call.
 */
export function createStoreProbe(
  check: () => Promise<unknown>,
  timeoutMs: number,
): () => Promise<boolean> {
  let inFlight: Promise<boolean> | undefined;
  return () => {
    inFlight ??= check().then(
      () => true,
      () => false,
    );
    const answer = inFlight;
    answer.finally(() => {
      if (inFlight === answer) inFlight = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
}
