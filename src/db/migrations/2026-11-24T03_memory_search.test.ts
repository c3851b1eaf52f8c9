/**
 * Memories gain search terms and each engine's index over them: memories stored before are
 * analyzed and found, tombstones are not; undone, the structures go and the memories stay.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { purgeTombstones } from '../../memory/tombstone-retention.ts';
import { buildTestApp, type TestApp } from '../../testing/build-test-app.ts';
import { down, up } from './2026-11-24T03_memory_search.ts';
import * as byStore from './2026-11-25T01_search_by_store.ts';
import * as analysis from './2026-11-28T01_search_analysis.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

/**
 * SQLite only: FTS5's own check of its index, and one key for every memory and no other (a
 * contentless index cannot be compared with the terms; the searches of each test check those).
 */
async function indexIsExact() {
  if (t.database.dialect !== 'sqlite') return;
  const { db } = t.database;
  await sql`insert into memory_search(memory_search, rank) values ('integrity-check', 1)`.execute(
    db,
  );
  const { rows } = await sql<{ memories: number; keys: number; keyed: number }>`select
      (select count(*) from memories) as memories,
      (select count(*) from memory_search_keys) as keys,
      (select count(*) from memories as m join memory_search_keys as k on k.memory_id = m.id)
        as keyed`.execute(db);
  const [counts] = rows;
  expect(counts?.keys).toBe(counts?.memories);
  expect(counts?.keyed).toBe(counts?.memories);
}

test('up analyzes the memories stored before; down drops the index and keeps the memories', async () => {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const who = { orgId, token: user.token };
  const add = async (content: string) => {
    const res = await t.request(who, {
      method: 'POST',
      url: '/api/v1/memory',
      payload: { content },
    });
    expect(res.statusCode).toBe(201);
    return res.json().memory.id as string;
  };
  const search = async (q: string) => {
    const res = await t.request(who, {
      method: 'GET',
      url: `/api/v1/memory/search?q=${encodeURIComponent(q)}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().memories.map((m: { id: string }) => m.id);
  };
  const db = t.database.db;

  const columns = async () =>
    (await db.introspection.getTables())
      .find((table) => table.name === 'memories')
      ?.columns.map((c) => c.name);
  const kept = await add('Café near TICKET-4521');
  const gone = await add('Café in 東京');
  await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${gone}` });

  // Stored without terms, then analyzed by the migration (the later ones that rebuild the
  // index undone first and done again after, as migrating down and up would).
  await analysis.down(db);
  await byStore.down(db);
  await down(db);
  expect(await columns()).not.toContain('search_terms');
  await up(db);
  await byStore.up(db);
  await analysis.up(db);
  expect(await columns()).toContain('search_terms');
  expect(await search('cafe ticket-4521')).toEqual([kept]);
  expect(await search('東京')).toEqual([]);
  const terms = await db
    .selectFrom('memories')
    .select(['id', 'search_terms'])
    .where('id', 'in', [kept, gone])
    .orderBy('id')
    .execute();
  expect(terms.map((r) => ({ ...r }))).toEqual(
    [
      { id: kept, search_terms: 'cafe near ticket 4521 ticket4521' },
      { id: gone, search_terms: '' },
    ].sort((a, b) => (a.id < b.id ? -1 : 1)),
  );
  await indexIsExact();
});

test('a purge of tombstones leaves the index exact', async () => {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const who = { orgId, token: user.token };
  const ids: string[] = [];
  for (const content of ['one purged', 'two purged', 'three kept']) {
    const res = await t.request(who, {
      method: 'POST',
      url: '/api/v1/memory',
      payload: { content },
    });
    ids.push(res.json().memory.id);
  }
  for (const id of ids.slice(0, 2)) {
    expect(
      (await t.request(who, { method: 'DELETE', url: `/api/v1/memory/${id}` })).statusCode,
    ).toBe(200);
  }
  expect(await purgeTombstones(t.database, 0, Date.now() + 1000)).toBeGreaterThan(0);
  await indexIsExact();
  const found = async () =>
    (await t.request(who, { method: 'GET', url: '/api/v1/memory/search?q=purged%20kept' }))
      .json()
      .memories.map((m: { id: string }) => m.id);
  expect(await found()).toEqual([ids[2]]);
  // VACUUM may renumber the implicit rowids of the memories table; the index keys its rows by
  // memory_search_keys, whose INTEGER PRIMARY KEY it keeps.
  if (t.database.dialect === 'sqlite') {
    await sql`vacuum`.execute(t.database.db);
    await indexIsExact();
    expect(await found()).toEqual([ids[2]]);
  }
});
