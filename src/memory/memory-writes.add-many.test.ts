/**
 * Adds to one store in one transaction (an import), on the suite's engine: each as an add would
 * do it, in order — folding into the store and into the writes before it, a category brought to
 * a memory without one — with the original `createdAt` kept for a new memory.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newRowId } from '../db/row-id.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { foldKey } from './fold.ts';
import { createMemoryRepository } from './memory.repository.ts';
import type { Category } from './memory.schemas.ts';
import { createMemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';
import { createPostgresWrites } from './memory-writes.postgres.ts';
import { type AddWrite, createStatementWrites, type MemoryWrites } from './memory-writes.ts';

let t: TestApp;
let writes: MemoryWrites;
beforeAll(async () => {
  t = await buildTestApp();
  const { database } = t;
  const deps = {
    database,
    repository: createMemoryRepository(database),
    embeddings: createMemoryEmbeddingsRepository(database),
  };
  writes =
    database.dialect === 'postgres' ? createPostgresWrites(deps) : createStatementWrites(deps);
});
afterAll(() => t?.close());

const AT = 1_800_000_000_000;

async function member() {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const scope = { orgId, kind: 'user' as const, ownerId: user.id };
  const add = (content: string, extra: Partial<AddWrite> = {}): AddWrite => ({
    scope,
    id: newRowId(),
    contributorId: user.id,
    content,
    foldKey: foldKey(content),
    category: null as Category | null,
    at: AT,
    audit: undefined,
    ...extra,
  });
  return { who: { orgId, token: user.token }, add };
}

test('each write as an add, in order: created, folded into the store and into earlier writes, a category brought', async () => {
  const { who, add } = await member();
  const [stored] = await writes.addMany([add('Already here', { at: AT - 10 })]);
  expect(stored?.created).toBe(true);

  const first = add('Flies to Lisbon in May');
  const results = await writes.addMany([
    first,
    add('Already here'),
    add('flies to lisbon in may'),
    add('Prefers window seats', { createdAt: AT - 86_400_000 }),
    add('Flies to Lisbon in May', { category: 'preference' }),
  ]);
  expect(results.map((r) => r.created)).toEqual([true, false, false, true, false]);
  expect(results[0]?.memory).toMatchObject({
    id: first.id,
    content: 'Flies to Lisbon in May',
    category: null,
    created_at: AT,
    updated_at: AT,
  });
  expect(results[1]?.memory.id).toBe(stored?.memory.id);
  expect(results[2]?.memory.id).toBe(first.id);
  expect(results[3]?.memory).toMatchObject({ created_at: AT - 86_400_000, updated_at: AT });
  // Folded into the first write of the batch, which had no category: it gains one, as a change.
  expect(results[4]?.memory).toMatchObject({
    id: first.id,
    category: 'preference',
    created_at: AT,
    updated_at: AT + 1,
  });

  const listed = await t.request(who, { method: 'GET', url: '/api/v1/memory' });
  expect(listed.statusCode, listed.body).toBe(200);
  const memories = listed.json().memories as Record<string, unknown>[];
  expect(memories.map((m) => [m.content, m.category ?? null, m.createdAt])).toEqual([
    ['Prefers window seats', null, new Date(AT - 86_400_000).toISOString()],
    ['Already here', null, new Date(AT - 10).toISOString()],
    ['Flies to Lisbon in May', 'preference', new Date(AT).toISOString()],
  ]);
  const found = await t.request(who, { method: 'GET', url: '/api/v1/memory/search?q=window' });
  expect(found.json().memories.map((m: { content: string }) => m.content)).toEqual([
    'Prefers window seats',
  ]);
});

test('nothing to add is no write', async () => {
  expect(await writes.addMany([])).toEqual([]);
});
