/**
 * isStoreUnavailable on the errors a real PostgreSQL server and the `pg` pool raise: a statement
 * timeout, a terminated backend, too many connections, a pool with no free client, a network that
 * stops answering — and, apart, the errors that stay 500.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTcpProxy } from '../testing/tcp-proxy.ts';
import { createTestStore, type TestStore, testPostgresUrl } from '../testing/test-store.ts';
import { isStoreUnavailable } from './availability.ts';
import { createDatabase } from './database.ts';

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore('postgres');
});
afterAll(async () => {
  await store.dispose();
});

function adminUrl(): string {
  const url = testPostgresUrl();
  if (!url) throw new Error('MNEMO_TEST_POSTGRES_URL is not set');
  return url;
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('it succeeded');
}

async function onAdmin<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await client.query<R>(text, values);
  } finally {
    await client.end();
  }
}

describe('unavailable: 503', () => {
  test('57014: a statement past the statement timeout', async () => {
    const database = createDatabase(store.url, { statementTimeoutMs: 100 });
    try {
      const error = await failure(() => sql`select pg_sleep(2)`.execute(database.db));
      expect(error).toMatchObject({ code: '57014' });
      expect(isStoreUnavailable(error)).toBe(true);
      // The pool goes on serving.
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([
        { one: 1 },
      ]);
    } finally {
      await database.close();
    }
  });

  test('57P01: the backend running the query is terminated', async () => {
    const database = createDatabase(store.url);
    try {
      const tag = `terminate_${randomBytes(4).toString('hex')}`;
      const running = failure(() =>
        sql`select pg_sleep(5) as ${sql.raw(tag)}`.execute(database.db),
      );
      let terminated = 0;
      for (let i = 0; i < 100 && terminated === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { rows } = await onAdmin<{ ok: boolean }>(
          'select pg_terminate_backend(pid) as ok from pg_stat_activity where query like $1 and pid <> pg_backend_pid()',
          [`%${tag}%`],
        );
        terminated = rows.filter((r) => r.ok).length;
      }
      expect(terminated).toBe(1);
      const error = await running;
      expect(error).toMatchObject({ code: '57P01' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      await database.close();
    }
  });

  test('53300: too many connections (a role limited to none)', async () => {
    const role = `mnemo_test_${randomBytes(6).toString('hex')}`;
    await onAdmin(`create role ${role} login connection limit 0`);
    try {
      const url = new URL(store.url);
      url.username = role;
      const client = new pg.Client({ connectionString: url.toString() });
      const error = await failure(() => client.connect());
      expect(error).toMatchObject({ code: '53300' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      await onAdmin(`drop role ${role}`);
    }
  });

  test('no free client in the pool within the connection timeout', async () => {
    const pool = new pg.Pool({ connectionString: store.url, max: 1, connectionTimeoutMillis: 100 });
    const held = await pool.connect();
    try {
      const error = await failure(() => pool.query('select 1'));
      expect(error).toMatchObject({ message: 'timeout exceeded when trying to connect' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  test('the network stops carrying packets: the answer never comes (query timeout)', async () => {
    const server = new URL(adminUrl());
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const database = createDatabase(proxy.through(store.url), { statementTimeoutMs: 100 });
    try {
      await sql`select 1`.execute(database.db);
      proxy.stall();
      const started = Date.now();
      const error = await failure(() => sql`select 1`.execute(database.db));
      // statement timeout + 1 s of grace: the server could not cancel it, the client gives up.
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error).toMatchObject({ message: 'Query read timeout' });
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      await proxy.restore();
      await database.close();
      await proxy.close();
    }
  });
});

describe('not unavailable: 500', () => {
  test('errors of the statement or the schema', async () => {
    const database = createDatabase(store.url);
    try {
      await sql`create table uniques (id int primary key)`.execute(database.db);
      await sql`insert into uniques values (1)`.execute(database.db);
      const duplicate = await failure(() =>
        sql`insert into uniques values (1)`.execute(database.db),
      );
      const syntax = await failure(() => sql`selec 1`.execute(database.db));
      const missing = await failure(() => sql`select * from no_such_table`.execute(database.db));
      expect(duplicate).toMatchObject({ code: '23505' });
      expect(syntax).toMatchObject({ code: '42601' });
      expect(missing).toMatchObject({ code: '42P01' });
      for (const error of [duplicate, syntax, missing]) {
        expect(isStoreUnavailable(error), String(error)).toBe(false);
      }
    } finally {
      await database.close();
    }
  });

  test('a database that does not exist, and a store this process closed', async () => {
    const url = new URL(store.url);
    url.pathname = `/no_such_database_${randomBytes(4).toString('hex')}`;
    const nowhere = createDatabase(url.toString());
    const absent = await failure(() => sql`select 1`.execute(nowhere.db));
    await nowhere.close();
    expect(absent).toMatchObject({ code: '3D000' });

    const database = createDatabase(store.url);
    await sql`select 1`.execute(database.db);
    await database.close();
    const closed = await failure(() => sql`select 1`.execute(database.db));

    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    await client.end();
    const ended = await failure(() => client.query('select 1'));
    for (const error of [absent, closed, ended]) {
      expect(error).toBeInstanceOf(Error);
      expect(isStoreUnavailable(error), String(error)).toBe(false);
    }
  });
});
