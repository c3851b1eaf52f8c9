import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createDatabase, type Database } from './database.ts';
import { migrateToLatest } from './migrator.ts';
import { PreparedQueryError, prepareQuery } from './prepared-query.ts';

let store: TestStore;
let database: Database;

beforeAll(async () => {
  store = await createTestStore();
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
  const { db } = database;
  for (const [id, status] of [
    ['a', 'active'],
    ['b', 'suspended'],
    ['c', 'banned'],
  ] as const) {
    await db
      .insertInto('users')
      .values({ id, email: `${id}@x.test`, name: null, password_hash: null, status, created_at: 1 })
      .execute();
  }
});
afterAll(async () => {
  await database.close();
  await store.dispose();
});

test('one compiled query, run with the values of each call; constants stay', async () => {
  const { db } = database;
  const query = prepareQuery((p: { id: string; email: string }) =>
    db
      .selectFrom('users')
      .select(['id', 'status'])
      .where('status', 'in', ['active', 'suspended'])
      .where((eb) => eb.or([eb('id', '=', p.id), eb('email', '=', p.email)]))
      .orderBy('id'),
  );
  expect(await query.rows(db, { id: 'a', email: 'b@x.test' })).toEqual([
    { id: 'a', status: 'active' },
    { id: 'b', status: 'suspended' },
  ]);
  expect(await query.first(db, { id: 'c', email: 'c@x.test' })).toBeUndefined();
  expect(await query.first(db, { id: 'b', email: 'none' })).toEqual({
    id: 'b',
    status: 'suspended',
  });
});

test('writes, inside a transaction, with their result metadata', async () => {
  const { db } = database;
  const setStatus = prepareQuery((p: { id: string; status: 'active' | 'banned' }) =>
    db.updateTable('users').set({ status: p.status }).where('id', '=', p.id),
  );
  const result = await db
    .transaction()
    .execute((trx) => setStatus.execute(trx, { id: 'c', status: 'active' }));
  expect(result.numAffectedRows).toBe(1n);
  const none = await setStatus.execute(db, { id: 'nobody', status: 'banned' });
  expect(none.numAffectedRows).toBe(0n);
  const row = await db
    .selectFrom('users')
    .select('status')
    .where('id', '=', 'c')
    .executeTakeFirst();
  expect(row).toEqual({ status: 'active' });
});

test('a value that does not become a parameter is refused when the query is prepared', () => {
  const { db } = database;
  expect(() =>
    prepareQuery((p: { id: string; unused: string }) => {
      void p.unused;
      return db.selectFrom('users').select('id').where('id', '=', p.id);
    }),
  ).toThrow(PreparedQueryError);
});
