/**
 * Memories gain vectors and stores their indexing progress, on both engines: a vector belongs to
 * a memory (one per model), goes when its memory row goes (the purge of tombstones), and is kept
 * as the bytes written; undone, the tables go and the memories stay.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../testing/build-test-app.ts';
import { down, up } from './2026-11-24T04_memory_embeddings.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

const tables = async () =>
  (await t.database.db.introspection.getTables()).map((table) => table.name);

async function memory(content: string) {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const res = await t.request(
    { orgId, token: user.token },
    { method: 'POST', url: '/api/v1/memory', payload: { content } },
  );
  expect(res.statusCode).toBe(201);
  const id = res.json().memory.id as string;
  const row = await t.database.db
    .selectFrom('memories')
    .select(['scope_id', 'version'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { id, scopeId: row.scope_id, version: Number(row.version) };
}

test('a vector per memory and model, kept byte for byte; it goes with its memory row', async () => {
  const { db } = t.database;
  const kept = await memory('Likes green tea');
  const bytes = new Uint8Array([0, 0, 128, 63, 0, 0, 0, 0]);
  await db
    .insertInto('memory_embeddings')
    .values([
      { memory_id: kept.id, model: 'a/one', memory_version: kept.version, vector: bytes },
      {
        memory_id: kept.id,
        model: 'b/two',
        memory_version: kept.version,
        vector: new Uint8Array(0),
      },
    ])
    .execute();
  const read = await db
    .selectFrom('memory_embeddings')
    .select(['model', 'vector'])
    .where('memory_id', '=', kept.id)
    .orderBy('model')
    .execute();
  expect(read.map((row) => [row.model, [...row.vector]])).toEqual([
    ['a/one', [...bytes]],
    ['b/two', []],
  ]);
  // One per memory and model.
  await expect(
    db
      .insertInto('memory_embeddings')
      .values({ memory_id: kept.id, model: 'a/one', memory_version: 9, vector: bytes })
      .execute(),
  ).rejects.toThrow();
  // Only of a memory that exists.
  await expect(
    db
      .insertInto('memory_embeddings')
      .values({ memory_id: 'no-such-memory', model: 'a/one', memory_version: 1, vector: bytes })
      .execute(),
  ).rejects.toThrow();
  await db
    .insertInto('memory_embedding_progress')
    .values({ scope_id: kept.scopeId, model: 'a/one', version: kept.version })
    .execute();

  // A row purged (as retention purges tombstones) takes its vectors along.
  await db.deleteFrom('memories').where('id', '=', kept.id).execute();
  expect(
    await db
      .selectFrom('memory_embeddings')
      .select('model')
      .where('memory_id', '=', kept.id)
      .execute(),
  ).toEqual([]);
});

test('down drops both tables and keeps the memories; up makes them again, empty', async () => {
  const kept = await memory('Plays the cello');
  await t.database.db
    .insertInto('memory_embeddings')
    .values({ memory_id: kept.id, model: 'a/one', memory_version: 1, vector: new Uint8Array(4) })
    .execute();
  await down(t.database.db);
  expect(await tables()).not.toEqual(expect.arrayContaining(['memory_embeddings']));
  expect(await tables()).not.toEqual(expect.arrayContaining(['memory_embedding_progress']));
  await up(t.database.db);
  expect(await tables()).toEqual(
    expect.arrayContaining(['memory_embeddings', 'memory_embedding_progress']),
  );
  expect(await t.database.db.selectFrom('memory_embeddings').select('model').execute()).toEqual([]);
  const memories = await t.database.db
    .selectFrom('memories')
    .select('id')
    .where('id', '=', kept.id)
    .execute();
  expect(memories).toEqual([{ id: kept.id }]);
});
