/**
 * Which failures mean "the store is unavailable" (503) and which are bugs (500), on errors the
 * drivers really raise: provoked here against sockets and files of the test's own; the ones that
 * need a PostgreSQL server are in availability.postgres.test.ts.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CompiledQuery, type QueryResult } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { notFound } from '../platform/errors.ts';
import { freePort } from '../testing/server-process.ts';
import { createStoreProbe, isStoreUnavailable, readinessCheck } from './availability.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What `select 1` raises from a `pg` pool aimed at `port`. */
async function pgFailure(port: number, connectionTimeoutMillis = 2000): Promise<unknown> {
  const pool = new pg.Pool({
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    connectionTimeoutMillis,
  });
  pool.on('error', () => {});
  try {
    await pool.query('select 1');
  } catch (error) {
    return error;
  } finally {
    await pool.end();
  }
  throw new Error('select 1 succeeded');
}

/** A TCP server on a free port that does `onConnection` with every connection. */
async function listen(
  onConnection: (socket: Socket) => void,
): Promise<{ port: number; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return { port: address.port, server };
}

function sqliteFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-availability-'));
  dirs.push(dir);
  const file = join(dir, 'store.db');
  const db = new DatabaseSync(file);
  db.exec('pragma journal_mode = wal; create table t (x integer primary key)');
  db.close();
  return file;
}

function sqliteFailure(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('the statement succeeded');
}

describe('isStoreUnavailable: the store cannot be reached', () => {
  test('PostgreSQL: connection refused (nothing listens)', async () => {
    const error = await pgFailure(await freePort());
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isStoreUnavailable(error)).toBe(true);
  });

  test('PostgreSQL: the server resets the connection', async () => {
    const { port, server } = await listen((socket) => socket.resetAndDestroy());
    try {
      const error = await pgFailure(port);
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      server.close();
    }
  });

  test('PostgreSQL: the connection closes before the server says anything', async () => {
    const { port, server } = await listen((socket) => socket.end());
    try {
      const error = await pgFailure(port);
      expect(error).toMatchObject({ message: 'Connection terminated unexpectedly' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      server.close();
    }
  });

  test('PostgreSQL: the server accepts and never answers (connect timeout)', async () => {
    const { port, server } = await listen(() => {});
    try {
      const started = Date.now();
      const error = await pgFailure(port, 200);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error).toMatchObject({ message: 'Connection terminated due to connection timeout' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      server.close();
    }
  });

  test('SQLite: SQLITE_BUSY, the file locked by another connection past busy_timeout', () => {
    const file = sqliteFile();
    const holder = new DatabaseSync(file);
    const other = new DatabaseSync(file);
    try {
      other.exec('pragma busy_timeout = 50');
      holder.exec('begin immediate');
      const begin = sqliteFailure(() => other.exec('begin immediate'));
      const insert = sqliteFailure(() => other.exec('insert into t values (1)'));
      for (const error of [begin, insert]) {
        expect(error).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 5 });
        expect(isStoreUnavailable(error)).toBe(true);
      }
    } finally {
      holder.exec('rollback');
      holder.close();
      other.close();
    }
  });

  test('found through `cause` and AggregateError', async () => {
    const refused = await pgFailure(await freePort());
    expect(isStoreUnavailable(new Error('while listing', { cause: refused }))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([new Error('other'), refused]))).toBe(true);
  });
});

describe('isStoreUnavailable: everything else is a bug, or the request', () => {
  test('SQLite: syntax error, constraint violation, a closed connection', () => {
    const file = sqliteFile();
    const db = new DatabaseSync(file);
    db.exec('insert into t values (1)');
    const syntax = sqliteFailure(() => db.exec('selec 1'));
    const constraint = sqliteFailure(() => db.exec('insert into t values (1)'));
    db.close();
    const closed = sqliteFailure(() => db.exec('select 1'));
    for (const error of [syntax, constraint, closed]) {
      expect(error).toBeInstanceOf(Error);
      expect(isStoreUnavailable(error), String(error)).toBe(false);
    }
  });

  test('errors of the interface and of the code, and what is not an error', () => {
    for (const value of [
      notFound('memory not found'),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new Error('Connection terminated'),
      'ECONNREFUSED',
      { code: 'ECONNREFUSED' },
      undefined,
      null,
    ]) {
      expect(isStoreUnavailable(value), String(value)).toBe(false);
    }
  });

  test('a cycle of causes ends', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isStoreUnavailable(a)).toBe(false);
  });
});

describe('createStoreProbe', () => {
  const answering = {
    executeQuery: async <R>(_query: CompiledQuery<R>): Promise<QueryResult<R>> => ({ rows: [] }),
  };

  test('true when the store answers, false when it fails', async () => {
    expect(
      await createStoreProbe(
        readinessCheck({ reader: answering, durable: () => undefined }),
        1000,
      )(),
    ).toBe(true);
    const refused = await pgFailure(await freePort());
    const failing = { executeQuery: () => Promise.reject(refused) };
    expect(
      await createStoreProbe(readinessCheck({ reader: failing, durable: () => undefined }), 1000)(),
    ).toBe(false);
  });

  test('false once the bound passes; a hanging query is shared, not repeated', async () => {
    let queries = 0;
    let answer: () => void = () => {};
    const hanging = {
      executeQuery: <R>(query: CompiledQuery<R>): Promise<QueryResult<R>> => {
        expect(query.sql).toBe(CompiledQuery.raw('select 1 as one').sql);
        queries++;
        return new Promise((resolve) => {
          answer = () => resolve({ rows: [] });
        });
      },
    };
    const probe = createStoreProbe(
      readinessCheck({ reader: hanging, durable: () => undefined }),
      100,
    );
    const started = Date.now();
    expect(await Promise.all([probe(), probe()])).toEqual([false, false]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await probe()).toBe(false);
    expect(queries).toBe(1);
    answer();
    await new Promise((resolve) => setImmediate(resolve));
    // The answer came: the next probe asks again.
    const next = probe();
    answer();
    expect(await next).toBe(true);
    expect(queries).toBe(2);
  });

  test('false while the store cannot make its commits durable', async () => {
    const failedSync = Promise.reject(new Error('fsync failed: EIO'));
    failedSync.catch(() => {});
    const check = readinessCheck({ reader: answering, durable: () => failedSync });
    expect(await createStoreProbe(check, 1000)()).toBe(false);
  });
});
