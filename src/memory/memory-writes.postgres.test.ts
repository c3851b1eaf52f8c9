/**
 * What only the PostgreSQL writes have, on a real server: adds to one store batched into one
 * function call while another is in flight (each call one transaction, told apart by the
 * `xmin` of the rows it wrote), folding inside a batch as sequential adds would, one add's
 * failure kept its own; and the answers of the update and delete functions. The rules every
 * engine shares are the memory suite's.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { newRowId } from '../db/row-id.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';
import type { CursorScope } from './cursor.ts';
import { foldKey } from './fold.ts';
import { createMemoryRepository } from './memory.repository.ts';
import type { Category } from './memory.schemas.ts';
import { createMemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { createPostgresWrites } from './memory-writes.postgres.ts';
import type { AddWrite, AuditedAct, MemoryWrites } from './memory-writes.ts';

let store: TestStore;
let database: Database;
let writes: MemoryWrites;
const ORG = newRowId();

beforeAll(async () => {
  store = await createTestStore('postgres');
  database = createDatabase(store.url);
  await migrateToLatest(database.db);
  await database.db
    .insertInto('organizations')
    .values({ id: ORG, name: 'Org', memory_enabled: 1, user_override: 'members', created_at: 0 })
    .execute();
  writes = createPostgresWrites({
    database,
    repository: createMemoryRepository(database),
    embeddings: createMemoryEmbeddingsRepository(database),
  });
});
afterAll(async () => {
  await database?.close();
  await store?.dispose();
});

/** A member with a personal store of their own. */
async function member(): Promise<{ id: string; scope: CursorScope }> {
  const id = newRowId();
  await database.db
    .insertInto('users')
    .values({
      id,
      email: `${id}@example.test`,
      name: null,
      password_hash: null,
      status: 'active',
      created_at: 0,
    })
    .execute();
  return { id, scope: { orgId: ORG, kind: 'user', ownerId: id } };
}

function addOf(
  who: { id: string; scope: CursorScope },
  content: string,
  more: { category?: Category; at?: number; contributorId?: string; audit?: AuditedAct } = {},
): AddWrite {
  return {
    scope: who.scope,
    id: newRowId(),
    contributorId: more.contributorId ?? who.id,
    content,
    foldKey: foldKey(content),
    category: more.category ?? null,
    at: more.at ?? 1_000,
    audit: more.audit,
  };
}

/** The store's rows in change order, each with the transaction that last wrote it. */
async function rowsOf(scope: CursorScope) {
  const { rows } = await sql<{
    id: string;
    content: string;
    category: string | null;
    version: number;
    updated_at: number;
    deleted_at: number | null;
    search_terms: string;
    xmin: string;
  }>`select m.id, m.content, m.category, m.version, m.updated_at, m.deleted_at,
      m.search_terms, m.xmin::text as xmin
    from memories as m join scopes as s on s.id = m.scope_id
    where s.org_id = ${scope.orgId} and s.kind = ${scope.kind} and s.owner_id = ${scope.ownerId}
    order by m.version`.execute(database.db);
  return rows;
}

async function counterOf(scope: CursorScope): Promise<number> {
  const row = await database.db
    .selectFrom('scopes')
    .select('version')
    .where('org_id', '=', scope.orgId)
    .where('kind', '=', scope.kind)
    .where('owner_id', '=', scope.ownerId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** How many rows each transaction wrote, in the order they committed. */
function batchSizes(rows: readonly { xmin: string }[]): number[] {
  const sizes = new Map<string, number>();
  for (const row of rows) sizes.set(row.xmin, (sizes.get(row.xmin) ?? 0) + 1);
  return [...sizes.values()];
}

test('concurrent adds to one store: the first goes alone, the rest in batches of at most 100, every one acknowledged in order', async () => {
  const who = await member();
  const results = await Promise.all(
    Array.from({ length: 250 }, (_, i) => writes.add(addOf(who, `note ${i}`))),
  );
  expect(results.every((r) => r.created)).toBe(true);
  const rows = await rowsOf(who.scope);
  expect(rows.map((r) => r.id)).toEqual(results.map((r) => r.memory.id));
  expect(rows.map((r) => r.version)).toEqual(rows.map((_, i) => i + 1));
  expect(await counterOf(who.scope)).toBe(250);
  expect(batchSizes(rows)).toEqual([1, 100, 100, 49]);
  expect(rows[7]?.search_terms).toBe('note 7');
});

test('equal contents in one batch fold into the first; a fold that brings a category is a change', async () => {
  const who = await member();
  const [first, ...batch] = await Promise.all([
    writes.add(addOf(who, 'warm up')),
    writes.add(addOf(who, 'Likes tea', { at: 5_000 })),
    writes.add(addOf(who, 'likes tea.', { at: 5_000 })),
    writes.add(addOf(who, 'LIKES TEA', { category: 'preference', at: 5_000 })),
    writes.add(addOf(who, 'likes tea', { category: 'goal', at: 5_000 })),
  ]);
  expect(first?.created).toBe(true);
  const [created, plain, categorized, already] = batch;
  expect(created?.created).toBe(true);
  const id = created?.memory.id;
  expect(plain).toEqual({ created: false, memory: { ...created?.memory } });
  expect(categorized).toEqual({
    created: false,
    memory: { ...created?.memory, category: 'preference', updated_at: 5_001 },
  });
  expect(already).toEqual({ created: false, memory: categorized?.memory });

  const rows = await rowsOf(who.scope);
  expect(rows.map((r) => [r.content, r.category, r.version])).toEqual([
    ['warm up', null, 1],
    ['Likes tea', 'preference', 3],
  ]);
  expect(rows[1]?.id).toBe(id);
  // Two memories, one of them changed once more: three changes, the last two in one call.
  expect(await counterOf(who.scope)).toBe(3);
  expect(batchSizes(rows)).toEqual([1, 1]);
  expect(rows[0]?.xmin).not.toBe(rows[1]?.xmin);
});

test("a batch with one add that fails: that add's error is its own, the others are written", async () => {
  const who = await member();
  const act = { orgId: ORG, actorId: newRowId(), targetId: who.id };
  const settled = await Promise.allSettled([
    writes.add(addOf(who, 'in flight')),
    writes.add(addOf(who, 'before', { audit: act })),
    // No such user: the memories' foreign key refuses it, and the call of its batch fails.
    writes.add(addOf(who, 'from no one', { contributorId: newRowId() })),
    writes.add(addOf(who, 'after')),
  ]);
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23503' });
  const rows = await rowsOf(who.scope);
  expect(rows.map((r) => [r.content, r.version])).toEqual([
    ['in flight', 1],
    ['before', 2],
    ['after', 3],
  ]);
  // The failed batch applied nothing; its adds were then written one call each.
  expect(batchSizes(rows)).toEqual([1, 1, 1]);
  expect(await counterOf(who.scope)).toBe(3);
  const audit = await database.db
    .selectFrom('audit_log')
    .select(['action', 'memory_id', 'details'])
    .where('target_id', '=', who.id)
    .execute();
  expect(audit).toEqual([{ action: 'add', memory_id: rows[1]?.id, details: null }]);
});

test('concurrent updates to one store: batched, answered in order, a conflict, a gone memory and a refused value each their own', async () => {
  const who = await member();
  const added = await Promise.all(
    Array.from({ length: 5 }, (_, i) => writes.add(addOf(who, `fact ${i}`, { at: 20_000 }))),
  );
  const [a, b, c, d, e] = added.map((result) => result.memory);
  if (!a || !b || !c || !d || !e) throw new Error('five memories were added');
  const change = (memoryId: string, text?: string, expectedUpdatedAt?: number) => ({
    scope: who.scope,
    memoryId,
    content: text === undefined ? undefined : { text, foldKey: foldKey(text) },
    category: undefined,
    expectedUpdatedAt,
    at: 30_000,
    audit: undefined,
  });
  const settled = await Promise.allSettled([
    writes.update(change(a.id, 'fact 0, in flight')),
    writes.update(change(b.id, 'fact 1, first')),
    writes.update(change(c.id, 'fact 2, changed', 19_999)),
    writes.update(change(newRowId(), 'no such memory')),
    writes.update(change(b.id, 'fact 1, second')),
    writes.update(change(d.id, 'fact 3 \u0000 refused')),
    writes.update(change(e.id, 'fact 4, last')),
  ]);
  expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.outcome : 'rejected'))).toEqual([
    'updated',
    'updated',
    'conflict',
    'gone',
    'updated',
    'rejected',
    'updated',
  ]);
  // PostgreSQL refuses a NUL in text: that update fails alone, the others are done.
  expect((settled[5] as PromiseRejectedResult).reason).toMatchObject({ code: '22021' });
  const rows = await rowsOf(who.scope);
  expect(rows.map((r) => [r.content, r.version])).toEqual([
    ['fact 2', 3],
    ['fact 3', 4],
    ['fact 0, in flight', 6],
    ['fact 1, second', 8],
    ['fact 4, last', 9],
  ]);
  // The first update went alone; the batch of the six others failed whole for the refused
  // value and ran again one update at a time: c and d are as the adds' second call left them.
  expect(batchSizes(rows)).toEqual([2, 1, 1, 1]);
  expect(await counterOf(who.scope)).toBe(9);
  const conflict = settled[2] as PromiseFulfilledResult<{ memory?: { content: string } }>;
  expect(conflict.value.memory?.content).toBe('fact 2');
});

test('adds to different stores run side by side, each store batched on its own', async () => {
  const members = await Promise.all(Array.from({ length: 4 }, () => member()));
  await Promise.all(
    members.flatMap((who) =>
      Array.from({ length: 30 }, (_, i) => writes.add(addOf(who, `shared ${i}`))),
    ),
  );
  for (const who of members) {
    const rows = await rowsOf(who.scope);
    expect(rows).toHaveLength(30);
    expect(batchSizes(rows)).toEqual([1, 29]);
  }
});

/** A vector of `memoryId` at its version, as the indexer would have written it. */
async function embed(memoryId: string, version: number) {
  await database.db
    .insertInto('memory_embeddings')
    .values({ memory_id: memoryId, model: 'm', memory_version: version, vector: new Uint8Array(4) })
    .execute();
}

const vectorsOf = (memoryId: string) =>
  database.db
    .selectFrom('memory_embeddings')
    .select('memory_version')
    .where('memory_id', '=', memoryId)
    .execute();

test('update: gone, conflict, a category that carries the vectors, content that drops them', async () => {
  const who = await member();
  const added = await writes.add(addOf(who, 'Plays the cello', { at: 10_000 }));
  const id = added.memory.id;
  await embed(id, 1);
  const change = {
    scope: who.scope,
    memoryId: id,
    content: undefined,
    category: undefined,
    expectedUpdatedAt: undefined,
    at: 9_000,
    audit: undefined,
  };

  expect(await writes.update({ ...change, memoryId: newRowId() })).toEqual({ outcome: 'gone' });
  expect(await writes.update({ ...change, expectedUpdatedAt: 9_999 })).toEqual({
    outcome: 'conflict',
    memory: added.memory,
  });
  expect(await counterOf(who.scope)).toBe(1);

  // A clock behind the stored time: `updated_at` still advances, by one.
  const categorized = await writes.update({
    ...change,
    category: { value: 'preference' },
    expectedUpdatedAt: 10_000,
  });
  expect(categorized).toEqual({
    outcome: 'updated',
    memory: { ...added.memory, category: 'preference', updated_at: 10_001 },
    newContent: false,
  });
  expect(await vectorsOf(id)).toEqual([{ memory_version: 2 }]);

  const act = { orgId: ORG, actorId: newRowId(), targetId: who.id };
  const rewritten = await writes.update({
    ...change,
    content: { text: 'Plays the viola', foldKey: foldKey('Plays the viola') },
    at: 20_000,
    audit: act,
  });
  expect(rewritten).toEqual({
    outcome: 'updated',
    memory: {
      ...added.memory,
      content: 'Plays the viola',
      category: 'preference',
      updated_at: 20_000,
    },
    newContent: true,
  });
  expect(await vectorsOf(id)).toEqual([]);
  const [row] = await rowsOf(who.scope);
  expect(row).toMatchObject({ version: 3, search_terms: 'plays plai viola' });
  // The same content again keeps the memory's (new) vectors current.
  await embed(id, 3);
  const same = await writes.update({
    ...change,
    content: { text: 'Plays the viola', foldKey: foldKey('Plays the viola') },
    category: { value: null },
  });
  expect(same).toMatchObject({ outcome: 'updated', newContent: false, memory: { category: null } });
  expect(await vectorsOf(id)).toEqual([{ memory_version: 4 }]);

  await writes.remove({ scope: who.scope, memoryId: id, at: 0, audit: undefined });
  expect(await writes.update(change)).toEqual({ outcome: 'gone' });
  expect(await counterOf(who.scope)).toBe(5);
  const audit = await database.db
    .selectFrom('audit_log')
    .select(['action', 'memory_id', 'actor_id'])
    .where('target_id', '=', who.id)
    .execute();
  expect(audit).toEqual([{ action: 'update', memory_id: id, actor_id: act.actorId }]);
});

test('remove: a tombstone once, vectors gone; a repeated or unknown delete changes nothing but is audited', async () => {
  const who = await member();
  const added = await writes.add(addOf(who, 'Lives in Lyon', { category: 'identity', at: 50_000 }));
  const id = added.memory.id;
  await embed(id, 1);
  const act = { orgId: ORG, actorId: newRowId(), targetId: who.id };
  const unknown = newRowId();
  for (const memoryId of [id, id, unknown]) {
    await writes.remove({ scope: who.scope, memoryId, at: 40_000, audit: act });
  }
  const [row] = await rowsOf(who.scope);
  expect(row).toMatchObject({
    id,
    content: '',
    category: null,
    version: 2,
    updated_at: 50_001,
    deleted_at: 50_001,
    search_terms: '',
  });
  expect(await vectorsOf(id)).toEqual([]);
  expect(await counterOf(who.scope)).toBe(2);
  const audit = await database.db
    .selectFrom('audit_log')
    .select(['action', 'memory_id'])
    .where('target_id', '=', who.id)
    .orderBy('id')
    .execute();
  expect(audit).toEqual([
    { action: 'delete', memory_id: id },
    { action: 'delete', memory_id: id },
    { action: 'delete', memory_id: unknown },
  ]);
  // The function's own answer: whether it wrote a tombstone.
  const removed = await sql<{ removed: boolean }>`select removed from mnemo_remove_memory(
      ${ORG}, 'user', ${who.id}, ${id}, 0, null)`.execute(database.db);
  expect(removed.rows).toEqual([{ removed: false }]);
});
