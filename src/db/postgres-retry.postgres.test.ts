/**
 * A write the server aborts for a deadlock or a serialization failure runs again, on real
 * conflicts provoked on PostgreSQL; any other failure is not retried.
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
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
  await database.db
    .insertInto('instance_secrets')
    .values([
      { name: 'a', value: '0' },
      { name: 'b', value: '0' },
    ])
    .execute();
});
afterAll(async () => {
  await database?.close();
  await store?.dispose();
});

/** Two rows locked in opposite orders: PostgreSQL aborts one of the two with 40P01. */
test('both writes of a deadlock commit: the aborted one runs again', async () => {
  const attempts = { ab: 0, ba: 0 };
  const lockBoth = (first: 'a' | 'b', second: 'a' | 'b') =>
    database.write(async (trx) => {
      attempts[`${first}${second}` as 'ab' | 'ba']++;
      const bump = (name: string) =>
        sql`update instance_secrets set value = (value::int + 1)::text where name = ${name}`.execute(
          trx,
        );
      await bump(first);
      await sql`select pg_sleep(0.2)`.execute(trx);
      await bump(second);
    });
  await Promise.all([lockBoth('a', 'b'), lockBoth('b', 'a')]);
  expect(attempts.ab + attempts.ba).toBe(3);
  const rows = await database.db
    .selectFrom('instance_secrets')
    .selectAll()
    .orderBy('name')
    .execute();
  expect(rows).toEqual([
    { name: 'a', value: '2' },
    { name: 'b', value: '2' },
  ]);
}, 20_000);

/** Serializable transactions that read and write the same row: one fails with 40001. */
test('a serialization failure runs the write again, which then sees the other commit', async () => {
  let attempts = 0;
  const increment = () =>
    database.write(async (trx) => {
      attempts++;
      await sql`set transaction isolation level serializable`.execute(trx);
      const { rows } = await sql<{
        value: string;
      }>`select value from instance_secrets where name = 'a'`.execute(trx);
      await sql`select pg_sleep(0.1)`.execute(trx);
      const next = String(Number(rows[0]?.value) + 1);
      await sql`update instance_secrets set value = ${next} where name = 'a'`.execute(trx);
    });
  const before = await database.db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', 'a')
    .executeTakeFirstOrThrow();
  await Promise.all([increment(), increment()]);
  expect(attempts).toBe(3);
  const after = await database.db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', 'a')
    .executeTakeFirstOrThrow();
  expect(Number(after.value)).toBe(Number(before.value) + 2);
}, 20_000);

test('any other failure is not run again', async () => {
  let attempts = 0;
  await expect(
    database.write(async (trx) => {
      attempts++;
      await sql`select no_such_column from instance_secrets`.execute(trx);
    }),
  ).rejects.toMatchObject({ code: '42703' });
  expect(attempts).toBe(1);
});
