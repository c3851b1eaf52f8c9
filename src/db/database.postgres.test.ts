/**
 * withoutTimeLimit on PostgreSQL: the statement timeout that bounds every request does not
 * bound a migration, which on a large store rewrites tables and builds indexes for longer.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createDatabase, type Database } from './database.ts';
import { migrateToLatest } from './migrator.ts';

let store: TestStore;
let database: Database;
beforeAll(async () => {
  store = await createTestStore('postgres');
  database = createDatabase(store.url, { statementTimeoutMs: 50 });
});
afterAll(async () => {
  await database.close();
  await store.dispose();
});

const sleep = sql<{ slept: string }>`select pg_sleep(0.3)::text as slept`;

test('a statement longer than the statement timeout is cancelled on the pool, and runs to its end without the limit', async () => {
  await expect(sleep.execute(database.db)).rejects.toMatchObject({ code: '57014' });
  const { rows } = await database.withoutTimeLimit((db) => sleep.execute(db));
  expect(rows).toEqual([{ slept: '' }]);
  // The pool keeps its limit.
  await expect(sleep.execute(database.db)).rejects.toMatchObject({ code: '57014' });
});

test('every migration applies under a statement timeout no migration could meet', async () => {
  const tight = createDatabase(store.url, { statementTimeoutMs: 1 });
  try {
    const applied = await tight.withoutTimeLimit(migrateToLatest);
    const { rows } = await sql<{
      name: string;
    }>`select name from kysely_migration order by name`.execute(database.db);
    expect(applied.length).toBeGreaterThan(10);
    expect(applied).toEqual(rows.map((r) => r.name));
    // Applied before: nothing left to do.
    expect(await tight.withoutTimeLimit(migrateToLatest)).toEqual([]);
  } finally {
    await tight.close();
  }
});
