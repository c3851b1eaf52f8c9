/**
 * Hybrid search through HTTP (`GET /api/v1/memory/search`) with an embedding model configured
 * at the OpenAI simulator, on the suite's engine: memories found by meaning that no query word
 * matches, fused with the lexical ranking by reciprocal rank; vectors computed in the background
 * and kept exact (an update's stale vector is never ranked, a deleted memory never returned); an
 * embeddings provider down answers by words, never with an error.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { hybridSearchEnv } from '../testing/search-config.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import { cosine, simulatedEmbedding } from '../testing/simulators/simulated-embedding.ts';
import { createTestStore } from '../testing/test-store.ts';
import type { MemoryItem } from './memory.schemas.ts';
import { fuseRankings } from './rank-fusion.ts';

const BASE = '/api/v1/memory';
const API_KEY = 'sk-sim';
/** text-embedding-3-small's own length: the simulator's vectors are crisp at it. */
const DIMENSIONS = 1536;
const MIN_SIMILARITY = 0.15;

interface Who {
  token: string;
  orgId: string;
  userId: string;
}

type Hit = MemoryItem & { score: number };

let sim: OpenAiSimulator;
/** Hybrid search. */
let t: TestApp;
/** The same store, searched without an embedding model: what words alone find. */
let lexical: TestApp;

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: API_KEY });
  t = await buildTestApp(
    hybridSearchEnv({
      kind: 'openai',
      baseUrl: sim.baseUrl,
      apiKey: API_KEY,
      minSimilarity: MIN_SIMILARITY,
    }),
  );
  lexical = await buildTestApp({}, { sharedStore: t.store });
});
afterAll(async () => {
  await lexical?.close();
  await t?.close();
  await sim?.close();
});

const indexed = () => t.app.embeddingIndexer?.idle();

async function member(app: TestApp = t): Promise<Who> {
  const orgId = await app.fixtures.org();
  const user = await app.fixtures.user(orgId);
  return { orgId, token: user.token, userId: user.id };
}

function json(res: LightMyRequestResponse) {
  expect(res.headers['cache-control'], res.body).toBe('no-store');
  return { status: res.statusCode, body: res.json() as unknown };
}

async function add(
  who: Who,
  content: string,
  extra: object = {},
  app: TestApp = t,
): Promise<MemoryItem> {
  const res = json(
    await app.request(who, { method: 'POST', url: BASE, payload: { content, ...extra } }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { memory: MemoryItem }).memory;
}

/** A 200 answer: exactly `{memories, mode}`. */
async function search(
  who: Who,
  q: string,
  extra = '',
  app: TestApp = t,
): Promise<{ memories: Hit[]; mode: string }> {
  const res = json(
    await app.request(who, {
      method: 'GET',
      url: `${BASE}/search?q=${encodeURIComponent(q)}${extra}`,
    }),
  );
  expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(200);
  expect(Object.keys(res.body as object).sort()).toEqual(['memories', 'mode']);
  return res.body as { memories: Hit[]; mode: string };
}

const contents = async (who: Who, q: string, extra = '', app: TestApp = t) =>
  (await search(who, q, extra, app)).memories.map((hit) => hit.content);

/** The vectors stored for a memory: its model and the version they were computed from. */
async function vectorsOf(memoryId: string) {
  const rows = await t.database.db
    .selectFrom('memory_embeddings')
    .select(['model', 'memory_version'])
    .where('memory_id', '=', memoryId)
    .execute();
  return rows.map((row) => ({ model: row.model, version: Number(row.memory_version) }));
}

async function versionOf(memoryId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('memories')
    .select('version')
    .where('id', '=', memoryId)
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

const embeddingCalls = () => sim.requests.filter((r) => r.path === '/v1/embeddings').length;

describe('the mode', () => {
  test('hybrid with an embedding model, lexical without; a store never written answers too', async () => {
    const who = await member();
    expect(await search(who, 'anything')).toEqual({ memories: [], mode: 'hybrid' });
    expect(await search(who, 'anything', '', lexical)).toEqual({ memories: [], mode: 'lexical' });
    const tea = await add(who, 'Likes green tea');
    expect(await search(who, 'green tea')).toEqual({
      memories: [{ ...tea, score: expect.any(Number) }],
      mode: 'hybrid',
    });
    expect(await search(who, 'green tea', '', lexical)).toEqual({
      memories: [{ ...tea, score: expect.any(Number) }],
      mode: 'lexical',
    });
  });
});

describe('found by meaning', () => {
  let who: Who;
  const memories: Record<string, MemoryItem> = {};
  beforeAll(async () => {
    who = await member();
    for (const content of [
      'Works as a programmer in Lyon',
      'Grows tomatoes in the garden',
      'Plays the cello in an orchestra',
      'Allergic to peanuts',
    ]) {
      memories[content] = await add(who, content, {
        category: content.startsWith('Allergic') ? 'constraint' : 'identity',
      });
    }
    await indexed();
  });

  test.each([
    ['programming', 'Works as a programmer in Lyon'],
    ['gardenia', 'Grows tomatoes in the garden'],
    ['orchestral', 'Plays the cello in an orchestra'],
    // `allergies` and `allergic` have different stems: only the vectors join them.
    ['allergies', 'Allergic to peanuts'],
  ])('%s finds %s, which none of its words or stems matches', async (q, content) => {
    expect(await contents(who, q, '', lexical)).toEqual([]);
    const { memories: hits, mode } = await search(who, q);
    expect(mode).toBe('hybrid');
    // Found by its vector alone, nearest: first of the vector ranking, in no lexical one.
    expect(hits[0]).toEqual({ ...memories[content], score: 1 / 61 });
  });

  test('the category filters what the vectors find', async () => {
    expect(await contents(who, 'peanut allergy', '&category=constraint')).toEqual([
      'Allergic to peanuts',
    ]);
    expect(await contents(who, 'peanut allergy', '&category=identity')).not.toContain(
      'Allergic to peanuts',
    );
  });

  test('limit applies to the fused answer', async () => {
    const all = await search(who, 'programmer garden cello peanuts');
    expect(all.memories.map((hit) => hit.content).sort()).toEqual(Object.keys(memories).sort());
    expect((await search(who, 'programmer garden cello peanuts', '&limit=2')).memories).toEqual(
      all.memories.slice(0, 2),
    );
  });

  test('not another store: a member finds nothing of another', async () => {
    const other = await member();
    await add(other, 'Collects stamps');
    await indexed();
    expect(await contents(other, 'programming')).toEqual([]);
    expect(await contents(who, 'stamp collector')).not.toContain('Collects stamps');
  });
});

describe('vectors off the request path, kept exact', () => {
  test('an added memory is found by its words at once, by its meaning once indexed', async () => {
    const who = await member();
    const cello = await add(who, 'Plays the cello in an orchestra');
    // No wait: the words are indexed in the add's own transaction.
    expect((await search(who, 'cello')).memories.map((hit) => hit.id)).toEqual([cello.id]);
    await indexed();
    expect(await vectorsOf(cello.id)).toEqual([
      { model: 'sim/embedder', version: await versionOf(cello.id) },
    ]);
    expect((await search(who, 'orchestral')).memories.map((hit) => hit.id)).toEqual([cello.id]);
  });

  test('new content drops the stale vector in its own transaction; the indexer replaces it', async () => {
    const who = await member();
    const memory = await add(who, 'Works as a programmer in Lyon');
    await indexed();
    expect(await contents(who, 'programming')).toEqual(['Works as a programmer in Lyon']);

    const patched = json(
      await t.request(who, {
        method: 'PATCH',
        url: `${BASE}/${memory.id}`,
        payload: { content: 'Grows tomatoes in the garden' },
      }),
    );
    expect(patched.status).toBe(200);
    // The old vector went with the change (the indexer may have written the new one since).
    const current = await versionOf(memory.id);
    expect((await vectorsOf(memory.id)).filter((vector) => vector.version !== current)).toEqual([]);
    // At once: the old content's vector ranks nothing, and the new content is found by words.
    expect(await contents(who, 'programming')).toEqual([]);
    expect(await contents(who, 'tomatoes')).toEqual(['Grows tomatoes in the garden']);
    await indexed();
    expect(await vectorsOf(memory.id)).toEqual([
      { model: 'sim/embedder', version: await versionOf(memory.id) },
    ]);
    expect(await contents(who, 'gardenia')).toEqual(['Grows tomatoes in the garden']);
  });

  test('a change that keeps the content keeps the vector, current, without embedding again', async () => {
    const who = await member();
    const memory = await add(who, 'Allergic to peanuts');
    await indexed();
    const calls = embeddingCalls();
    const patched = await t.request(who, {
      method: 'PATCH',
      url: `${BASE}/${memory.id}`,
      payload: { category: 'constraint' },
    });
    expect(patched.statusCode).toBe(200);
    expect(await vectorsOf(memory.id)).toEqual([
      { model: 'sim/embedder', version: await versionOf(memory.id) },
    ]);
    await indexed();
    expect(embeddingCalls()).toBe(calls);
    expect(await contents(who, 'peanut allergy', '&category=constraint')).toEqual([
      'Allergic to peanuts',
    ]);
  });

  test('a deleted memory is never returned, and its vectors go with it', async () => {
    const who = await member();
    const memory = await add(who, 'Allergic to peanuts');
    const kept = await add(who, 'Allergic to cats');
    await indexed();
    // Searched once before the delete: the store's vectors are kept in memory since.
    expect(await contents(who, 'peanut allergy')).toContain('Allergic to peanuts');
    const deleted = await t.request(who, { method: 'DELETE', url: `${BASE}/${memory.id}` });
    expect(deleted.statusCode).toBe(200);
    expect(await vectorsOf(memory.id)).toEqual([]);
    for (const q of ['peanut allergy', 'peanuts', 'allergic']) {
      const ids = (await search(who, q)).memories.map((hit) => hit.id);
      expect(ids).not.toContain(memory.id);
    }
    expect((await search(who, 'allergic')).memories.map((hit) => hit.id)).toEqual([kept.id]);
    await indexed();
    expect(await vectorsOf(memory.id)).toEqual([]);
  });

  test('a memory without a vector is found by its words; by its meaning once another process embeds it', async () => {
    // An app whose indexer has stopped: what it adds gets no vector from it.
    const store = await createTestStore();
    const env = hybridSearchEnv({
      kind: 'openai',
      baseUrl: sim.baseUrl,
      apiKey: API_KEY,
      minSimilarity: MIN_SIMILARITY,
    });
    const paused = await buildTestApp(env, { sharedStore: store });
    let other: TestApp | undefined;
    try {
      await paused.app.embeddingIndexer?.close();
      const who = await member(paused);
      const memory = await add(who, 'Plays the cello in an orchestra', {}, paused);
      expect(await search(who, 'cello', '', paused)).toEqual({
        memories: [{ ...memory, score: 1 / 61 }],
        mode: 'hybrid',
      });
      expect(await search(who, 'orchestral', '', paused)).toEqual({
        memories: [],
        mode: 'hybrid',
      });
      // Another process embeds it: the first one's kept vectors see it (within a second).
      other = await buildTestApp(env, { sharedStore: store });
      await other.app.embeddingIndexer?.idle();
      let found: Hit[] = [];
      for (let tries = 0; tries < 50 && found.length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = (await search(who, 'orchestral', '', paused)).memories;
      }
      expect(found).toEqual([{ ...memory, score: 1 / 61 }]);
    } finally {
      await other?.close();
      await paused.close();
      await store.dispose();
    }
  });
});

describe('reciprocal rank fusion', () => {
  test('the score is the sum of 1/(60 + rank) over the lexical and the vector rankings', async () => {
    const who = await member();
    const all = [
      'Likes green tea',
      'Drinks green tea in the garden every morning',
      'Grows tomatoes in the garden',
      'Gardener by trade, tea drinker by habit',
      'Repairs bicycles on Sundays',
      'Greenhouse full of tomatoes and peppers',
    ];
    for (const content of all) await add(who, content);
    await indexed();
    const q = 'tea in a garden, or bicycles';
    // The lexical ranking as the lexical search gives it (the candidates hybrid search takes)…
    const words = (await search(who, q, '&limit=50', lexical)).memories.map((hit) => hit.content);
    expect(words.length).toBeGreaterThan(0);
    // …and the vector ranking, from the simulator's vectors.
    const query = simulatedEmbedding(q, DIMENSIONS);
    const near = all
      .map((content) => ({
        content,
        similarity: cosine(query, simulatedEmbedding(content, DIMENSIONS)),
      }))
      .filter((entry) => entry.similarity >= MIN_SIMILARITY)
      .sort((a, b) => b.similarity - a.similarity)
      .map((entry) => entry.content);
    expect(near.length).toBeGreaterThan(0);
    // A case where the two disagree: else fusion would show nothing.
    expect(near).not.toEqual(words);
    const expected = fuseRankings([words, near]);
    const { memories: hits, mode } = await search(who, q);
    expect(mode).toBe('hybrid');
    expect(hits.map((hit) => hit.content)).toEqual(expected.map((entry) => entry.id));
    hits.forEach((hit, index) => {
      expect(hit.score).toBeCloseTo(expected[index]?.score as number, 12);
    });
  });
});

describe('a provider that fails: answered by words, never an error', () => {
  test.each([
    ['answering 500', { kind: 'error', status: 500 }],
    ['answering 429', { kind: 'error', status: 429, headers: { 'retry-after': '30' } }],
    ['dropping the connection', { kind: 'drop' }],
  ] as const)('%s: 200, lexical', async (_name, failure) => {
    const down = await startOpenAiSimulator({ apiKey: API_KEY });
    const app = await buildTestApp(
      hybridSearchEnv({ kind: 'openai', baseUrl: down.baseUrl, apiKey: API_KEY }),
    );
    try {
      down.outage(failure);
      const who = await member(app);
      const memory = await add(who, 'Plays the cello in an orchestra', {}, app);
      for (let i = 0; i < 4; i++) {
        // Past the circuit breaker's threshold too: then not even tried.
        expect(await search(who, 'cello', '', app)).toEqual({
          memories: [{ ...memory, score: expect.any(Number) }],
          mode: 'lexical',
        });
      }
      expect(await search(who, 'orchestral', '', app)).toEqual({ memories: [], mode: 'lexical' });
    } finally {
      await app.close();
      await down.close();
    }
  });

  test('unreachable, or slower than MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS: 200, lexical', async () => {
    const hanging = await startOpenAiSimulator({ apiKey: API_KEY });
    hanging.outage({ kind: 'hang' });
    for (const [baseUrl, env] of [
      // Nothing listens on the discard port.
      ['http://127.0.0.1:9/v1', {}],
      [hanging.baseUrl, { MNEMO_SEARCH_EMBEDDING_TIMEOUT_MS: '200' }],
    ] as const) {
      const app = await buildTestApp({
        ...hybridSearchEnv({ kind: 'openai', baseUrl, apiKey: API_KEY }),
        ...env,
      });
      try {
        const who = await member(app);
        const memory = await add(who, 'Likes green tea', {}, app);
        expect(await search(who, 'tea', '', app)).toEqual({
          memories: [{ ...memory, score: expect.any(Number) }],
          mode: 'lexical',
        });
      } finally {
        await app.close();
      }
    }
    await hanging.close();
  });

  test('what was added during an outage is embedded once the provider answers again', async () => {
    const flaky = await startOpenAiSimulator({ apiKey: API_KEY });
    const env = hybridSearchEnv({
      kind: 'openai',
      baseUrl: flaky.baseUrl,
      apiKey: API_KEY,
      minSimilarity: MIN_SIMILARITY,
    });
    const store = await createTestStore();
    const during = await buildTestApp(env, { sharedStore: store });
    flaky.outage({ kind: 'error', status: 503 });
    const who = await member(during);
    const memory = await add(who, 'Plays the cello in an orchestra', {}, during);
    await during.close();
    flaky.outage();
    // A process started after: the store remembers what still lacks its vector.
    const after = await buildTestApp(env, { sharedStore: store });
    try {
      await after.app.embeddingIndexer?.idle();
      expect(await search(who, 'orchestral', '', after)).toEqual({
        memories: [{ ...memory, score: 1 / 61 }],
        mode: 'hybrid',
      });
    } finally {
      await after.close();
      await store.dispose();
      await flaky.close();
    }
  });
});
