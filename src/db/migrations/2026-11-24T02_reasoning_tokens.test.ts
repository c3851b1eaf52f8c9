/**
 * Usage records gain `reasoning_tokens` on both engines: calls recorded before count 0, new ones
 * keep what they were given; undone, the column goes and the rows stay.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../../testing/test-store.ts';
import { createDatabase, type Database } from '../database.ts';
import { migrateToLatest } from '../migrator.ts';
import { down, up } from './2026-11-24T02_reasoning_tokens.ts';

let store: TestStore;
let database: Database;
beforeAll(async () => {
  store = await createTestStore();
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
});
afterAll(async () => {
  await database?.close();
  await store?.dispose();
});

const row = (id: string) => ({
  id,
  at: 1_000,
  org_id: 'org',
  user_id: 'user',
  key_id: 'key',
  model: 'openai/o4-mini',
  provider: 'openai',
  prompt_tokens: 10,
  completion_tokens: 200,
  total_tokens: 210,
  cost_micro_usd: 4800,
  latency_ms: 5,
  status: 200,
});

test('up adds the column, 0 for the calls recorded before; down drops it and keeps the rows', async () => {
  const db = database.db;
  await down(db);
  await db.insertInto('usage_records').values(row('a')).execute();
  const before = await db.selectFrom('usage_records').selectAll().execute();
  expect(before.map((r) => Object.keys(r))).toEqual([
    expect.not.arrayContaining(['reasoning_tokens']),
  ]);

  await up(db);
  await db
    .insertInto('usage_records')
    .values({ ...row('b'), reasoning_tokens: 150 })
    .execute();
  const after = await db
    .selectFrom('usage_records')
    .select(['id', 'reasoning_tokens'])
    .orderBy('id')
    .execute();
  expect(after.map((r) => [r.id, Number(r.reasoning_tokens)])).toEqual([
    ['a', 0],
    ['b', 150],
  ]);
  await expect(
    db
      .insertInto('usage_records')
      .values({ ...row('c'), reasoning_tokens: null as never })
      .execute(),
  ).rejects.toThrow(/null/i);

  await down(db);
  const rows = await db.selectFrom('usage_records').selectAll().orderBy('id').execute();
  expect(rows.map((r) => [r.id, 'reasoning_tokens' in r])).toEqual([
    ['a', false],
    ['b', false],
  ]);
  await up(db);
});
