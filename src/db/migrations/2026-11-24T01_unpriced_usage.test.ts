/**
 * The usage cost becomes nullable (a model without a price) on both engines, keeping every
 * recorded cost; undone, unknown costs become 0 and the column refuses null again.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../../testing/test-store.ts';
import { createDatabase, type Database } from '../database.ts';
import { migrateToLatest } from '../migrator.ts';
import { down, up } from './2026-11-24T01_unpriced_usage.ts';

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

const row = (id: string, cost: number | null) => ({
  id,
  at: 1_000,
  org_id: 'org',
  user_id: 'user',
  key_id: 'key',
  model: 'local/llama3.1',
  provider: 'local',
  prompt_tokens: 10,
  completion_tokens: 2,
  total_tokens: 12,
  cost_micro_usd: cost,
  latency_ms: 5,
  status: 200,
});

const costs = async () =>
  (
    await database.db
      .selectFrom('usage_records')
      .select(['id', 'cost_micro_usd'])
      .orderBy('id')
      .execute()
  ).map((r) => [r.id, r.cost_micro_usd === null ? null : Number(r.cost_micro_usd)]);

test('up keeps the costs and takes null; down turns null into 0 and refuses null again', async () => {
  const db = database.db;
  await db.insertInto('usage_records').values(row('a', null)).execute();

  await down(db);
  expect(await costs()).toEqual([['a', 0]]);
  await db.insertInto('usage_records').values(row('b', 4800)).execute();
  await expect(db.insertInto('usage_records').values(row('c', null)).execute()).rejects.toThrow(
    /null/i,
  );

  await up(db);
  expect(await costs()).toEqual([
    ['a', 0],
    ['b', 4800],
  ]);
  await db.insertInto('usage_records').values(row('c', null)).execute();
  expect(await costs()).toEqual([
    ['a', 0],
    ['b', 4800],
    ['c', null],
  ]);
});
