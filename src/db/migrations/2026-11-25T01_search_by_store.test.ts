/**
 * SQLite's index learns each memory's store: a search reads only its own store's rows, finds
 * the same memories as before, and undone the index is as it was; PostgreSQL is untouched.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../testing/build-test-app.ts';
import { down, up } from './2026-11-25T01_search_by_store.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

test('each store finds its own memories, before and after; undone and done again, the same', async () => {
  const orgId = await t.fixtures.org();
  const [ada, bob] = [await t.fixtures.user(orgId), await t.fixtures.user(orgId)];
  const add = async (token: string, content: string) => {
    const res = await t.request(
      { orgId, token },
      { method: 'POST', url: '/api/v1/memory', payload: { content } },
    );
    return (res.json() as { memory: { id: string } }).memory.id;
  };
  const search = async (token: string, q: string) =>
    (
      (
        await t.request(
          { orgId, token },
          { url: `/api/v1/memory/search?q=${encodeURIComponent(q)}` },
        )
      ).json() as {
        memories: { id: string }[];
      }
    ).memories.map((memory) => memory.id);
  const storeOf = async (id: string) =>
    (
      await t.database.db
        .selectFrom('memories')
        .select('scope_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).scope_id;
  const adas = await add(ada.token, 'Walks the dog at dawn');
  const bobs = await add(bob.token, 'Walks the dog at dusk');
  expect(await search(ada.token, 'dog')).toEqual([adas]);
  expect(await search(bob.token, 'walks dog')).toEqual([bobs]);

  await down(t.database.db);
  if (t.database.dialect === 'sqlite') {
    // The index of before: one column of terms, every store's rows together.
    const { rows } = await sql<{ n: number }>`select count(*) as n from memory_search
      where memory_search match 'dog'`.execute(t.database.db);
    expect(rows).toEqual([{ n: 2 }]);
    await expect(
      sql`select rowid from memory_search where memory_search match 'store : all'`.execute(
        t.database.db,
      ),
    ).rejects.toThrow(/no such column: store/);
  }
  await up(t.database.db);
  expect(await search(ada.token, 'dog')).toEqual([adas]);
  expect(await search(bob.token, 'dusk')).toEqual([bobs]);

  if (t.database.dialect === 'sqlite') {
    await sql`insert into memory_search(memory_search, rank) values ('integrity-check', 1)`.execute(
      t.database.db,
    );
    // One store token per memory, in the store column.
    const { rows } = await sql<{ n: number }>`select count(*) as n from memory_search
      where memory_search match ${`store : s${(await storeOf(adas)).replaceAll('-', '')}`}`.execute(
      t.database.db,
    );
    expect(rows).toEqual([{ n: 1 }]);
  }
});
