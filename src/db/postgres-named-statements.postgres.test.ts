/**
 * On PostgreSQL the SQL of prepared queries runs as named statements, parsed once per
 * connection; any other SQL does not. A column added while a process runs (a migration during a
 * rolling upgrade) does not break the statements it holds.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMemoryRepository } from '../memory/memory.repository.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import { createDatabase, type Database } from './database.ts';
import { migrateToLatest } from './migrator.ts';
import { preparedStatementName, prepareQuery } from './prepared-query.ts';

let store: TestStore;
let database: Database;

beforeAll(async () => {
  store = await createTestStore('postgres');
  // One connection: what it has prepared is what the next query sees.
  database = createDatabase(store.url, { poolSize: 1 });
  await migrateToLatest(database.db);
});
afterAll(async () => {
  await database?.close();
  await store?.dispose();
});

const prepared = async () =>
  (
    await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements order by name`.execute(database.db)
  ).rows;

test('a prepared query is parsed once per connection, under its own name; other SQL is not kept', async () => {
  const { db } = database;
  const secret = prepareQuery((p: { name: string }) =>
    db.selectFrom('instance_secrets').select('value').where('name', '=', p.name),
  );
  const name = preparedStatementName(
    db.selectFrom('instance_secrets').select('value').where('name', '=', 'x').compile().sql,
  );
  expect(name).toMatch(/^mnemo_\d+$/);
  await db.insertInto('instance_secrets').values({ name: 'a', value: '1' }).execute();
  expect(await secret.first(database.reader, { name: 'a' })).toEqual({ value: '1' });
  expect(await secret.first(database.reader, { name: 'b' })).toBeUndefined();
  await database.write((trx) => secret.first(trx, { name: 'a' }));
  const kept = await prepared();
  expect(kept.map((s) => s.name)).toEqual([name]);
  expect(kept[0]?.statement).toContain('from "instance_secrets"');
});

test('a column added while the statements are kept: they go on working', async () => {
  const repository = createMemoryRepository(database);
  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  await database.db
    .insertInto('organizations')
    .values({
      id: orgId,
      name: 'Org',
      memory_enabled: null,
      user_override: 'members',
      created_at: 1,
    })
    .execute();
  await database.db
    .insertInto('users')
    .values({
      id: userId,
      email: 'a@x.test',
      name: null,
      password_hash: null,
      status: 'active',
      created_at: 1,
    })
    .execute();
  const scope = { orgId, kind: 'user' as const, ownerId: userId };
  const memory = {
    id: crypto.randomUUID(),
    contributor_id: userId,
    content: 'Likes tea',
    fold_key: 'likes tea',
    category: null,
    created_at: 1,
    updated_at: 1,
    deleted_at: null,
  };
  await database.write(async (trx) => {
    const state = await repository.lockScope(trx, scope);
    const version = await repository.bumpScope(trx, state.id);
    await repository.insertMemory(trx, { ...memory, scope_id: state.id, version });
  });
  const read = async () => ({
    one: await repository.findById(database.reader, memory.id),
    all: (await repository.readScope(database.reader, scope))?.version,
  });
  const before = await read();
  await sql`alter table memories add column later text`.execute(database.db);
  await sql`alter table scopes add column later text`.execute(database.db);
  expect(await read()).toEqual(before);
  expect(before.one?.content).toBe('Likes tea');
});
