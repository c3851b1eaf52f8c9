/**
 * Two processes' indexers on one PostgreSQL store (docs/design.md §5): while members add, change
 * and delete memories through both, each process embeds what it finds, the two racing over the
 * same memories. Once both are idle no work is lost (every active memory has its current vector,
 * every store's progress is its counter) and none is wrong (no vector of a deleted memory, none
 * of content since changed).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { hybridSearchEnv, SEARCH_MODEL_ID } from '../testing/search-config.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import { createTestStore, type TestStore } from '../testing/test-store.ts';

const API_KEY = 'sk-sim';
let sim: OpenAiSimulator;
let store: TestStore;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: API_KEY });
  store = await createTestStore('postgres');
  const env = hybridSearchEnv({
    kind: 'openai',
    baseUrl: sim.baseUrl,
    apiKey: API_KEY,
    minSimilarity: 0.15,
  });
  a = await buildTestApp(env, { sharedStore: store });
  b = await buildTestApp(env, { sharedStore: store });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await store?.dispose();
  await sim?.close();
});

const TOPICS = ['cello', 'tomatoes', 'marathons', 'peanuts', 'kubernetes', 'stamps'];

test('writes through both processes, both indexing: nothing lost, nothing stale', async () => {
  const orgId = await a.fixtures.org();
  const members = await Promise.all(
    Array.from({ length: 4 }, () =>
      a.fixtures.user(orgId).then((u) => ({ orgId, token: u.token })),
    ),
  );
  const apps = [a, b];
  // Every member writes through both processes in turn, all members at once.
  await Promise.all(
    members.map(async (who, m) => {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const app = apps[i % 2] as TestApp;
        const res = await app.request(who, {
          method: 'POST',
          url: '/api/v1/memory',
          payload: { content: `Member ${m} note ${i} about ${TOPICS[i % TOPICS.length]}` },
        });
        expect(res.statusCode).toBe(201);
        ids.push(res.json().memory.id);
        // Now and then a change of content or a delete, through the other process.
        const other = apps[(i + 1) % 2] as TestApp;
        if (i % 7 === 3) {
          const patched = await other.request(who, {
            method: 'PATCH',
            url: `/api/v1/memory/${ids[i - 2]}`,
            payload: { content: `Member ${m} rewrote note ${i - 2}: now about gardening` },
          });
          expect(patched.statusCode).toBe(200);
        }
        if (i % 11 === 5) {
          const deleted = await other.request(who, {
            method: 'DELETE',
            url: `/api/v1/memory/${ids[i - 4]}`,
          });
          expect(deleted.statusCode).toBe(200);
        }
      }
    }),
  );
  await Promise.all([a.app.embeddingIndexer?.idle(), b.app.embeddingIndexer?.idle()]);

  const { db } = a.database;
  const memories = await db
    .selectFrom('memories')
    .select(['id', 'version', 'deleted_at', 'scope_id'])
    .execute();
  const vectors = await db
    .selectFrom('memory_embeddings')
    .select(['memory_id', 'memory_version', 'vector', 'model'])
    .execute();
  const active = memories.filter((row) => row.deleted_at === null);
  expect(active.length).toBeGreaterThan(100);
  expect(active.length).toBeLessThan(memories.length);
  // Exactly one current, non-empty vector per active memory; none for a deleted one.
  expect(
    vectors
      .map((row) => ({
        id: row.memory_id,
        version: Number(row.memory_version),
        model: row.model,
        bytes: row.vector.byteLength,
      }))
      .sort((x, y) => (x.id < y.id ? -1 : 1)),
  ).toEqual(
    active
      .map((row) => ({
        id: row.id,
        version: Number(row.version),
        model: SEARCH_MODEL_ID,
        bytes: 1536 * 4,
      }))
      .sort((x, y) => (x.id < y.id ? -1 : 1)),
  );
  // Each store's progress has reached its counter.
  const scopes = await db.selectFrom('scopes').select(['id', 'version']).execute();
  const progress = await db
    .selectFrom('memory_embedding_progress')
    .select(['scope_id', 'version'])
    .where('model', '=', SEARCH_MODEL_ID)
    .execute();
  expect(Object.fromEntries(progress.map((row) => [row.scope_id, Number(row.version)]))).toEqual(
    Object.fromEntries(scopes.map((row) => [row.id, Number(row.version)])),
  );

  // And both processes find by meaning what either wrote.
  for (const app of apps) {
    const res = await app.request(members[0] as { orgId: string; token: string }, {
      method: 'GET',
      url: '/api/v1/memory/search?q=gardener',
    });
    expect(res.json().mode).toBe('hybrid');
    expect(res.json().memories[0].content).toMatch(/now about gardening$/);
  }
}, 120_000);
