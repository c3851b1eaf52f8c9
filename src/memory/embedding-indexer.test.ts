/**
 * The embedding indexer's loop on a real store, beside an app that writes memories through HTTP
 * (and does not nudge this indexer: it finds the work by itself): an outage is logged once and
 * waited out, a text the provider refuses is set aside without holding up the others, a provider
 * that refuses everything is an outage, and closing abandons a call that hangs.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { createCircuitBreaker } from '../gateway/circuit-breaker.ts';
import { loadCatalog } from '../gateway/gateway-config.ts';
import { createTransport } from '../gateway/providers/transport.ts';
import { createSearchEmbedders } from '../gateway/search-embedder.ts';
import type { Embedder } from '../memory/embedder.ts';
import { buildTestApp, type TestApp } from '../testing/build-test-app.ts';
import { hybridSearchEnv } from '../testing/search-config.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import { simulatedEmbedding } from '../testing/simulators/simulated-embedding.ts';
import { EmbeddingRefused } from './embedder.ts';
import { createEmbeddingIndexer, type EmbeddingIndexer } from './embedding-indexer.ts';
import { createMemoryEmbeddingsRepository } from './memory-embeddings.repository.ts';

const API_KEY = 'sk-sim';
let sim: OpenAiSimulator;
let t: TestApp;
const transport = createTransport({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
const running: EmbeddingIndexer[] = [];

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: API_KEY });
  t = await buildTestApp();
});
afterEach(async () => {
  sim.outage();
  for (const indexer of running.splice(0)) await indexer.close();
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
  await transport.close();
});

/** Log lines as pino would get them. */
function capturedLog() {
  const lines: { level: 'warn' | 'info'; details: object; message: string }[] = [];
  return {
    lines,
    warn: (details: object, message: string) => lines.push({ level: 'warn', details, message }),
    info: (details: object, message: string) => lines.push({ level: 'info', details, message }),
  };
}

/** The simulator's model through the gateway, as app.ts builds it; its breaker reopens soon. */
function simulatorEmbedder(): Embedder {
  const env = hybridSearchEnv({ kind: 'openai', baseUrl: sim.baseUrl, apiKey: API_KEY });
  const catalog = loadCatalog({ file: env.MNEMO_CONFIG, variables: env });
  const embedders = createSearchEmbedders(
    catalog,
    transport,
    createCircuitBreaker({ cooldownMs: 20, maxCooldownMs: 40 }),
  );
  if (!embedders) throw new Error('no search model');
  return embedders.documents;
}

/** An Embedder that counts its calls: the indexer's attempts. */
function counted(embedder: Embedder) {
  let calls = 0;
  return {
    calls: () => calls,
    embedder: {
      model: embedder.model,
      embed: (texts: readonly string[], signal: AbortSignal) => {
        calls += 1;
        return embedder.embed(texts, signal);
      },
    } satisfies Embedder,
  };
}

function start(embedder: Embedder, log = capturedLog()) {
  const indexer = createEmbeddingIndexer({
    database: t.database,
    repository: createMemoryEmbeddingsRepository(t.database),
    embedder,
    log,
    minBackoffMs: 5,
    maxBackoffMs: 20,
  });
  running.push(indexer);
  return indexer;
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 500) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function addMemories(contents: readonly string[]): Promise<string[]> {
  const orgId = await t.fixtures.org();
  const user = await t.fixtures.user(orgId);
  const ids: string[] = [];
  for (const content of contents) {
    const res = await t.request(
      { orgId, token: user.token },
      { method: 'POST', url: '/api/v1/memory', payload: { content } },
    );
    expect(res.statusCode).toBe(201);
    ids.push(res.json().memory.id);
  }
  return ids;
}

/** The vectors of `model` for the memories: by id, the stored byte length (0: refused). */
async function stored(model: string, ids: readonly string[]) {
  const rows = await t.database.db
    .selectFrom('memory_embeddings')
    .select(['memory_id', 'vector'])
    .where('model', '=', model)
    .where('memory_id', 'in', [...ids])
    .execute();
  return Object.fromEntries(rows.map((row) => [row.memory_id, row.vector.byteLength]));
}

test('an outage is logged once, retried with back-off, and waited out', async () => {
  sim.outage({ kind: 'error', status: 500 });
  const log = capturedLog();
  const ids = await addMemories(['Likes green tea', 'Plays the cello', 'Grows tomatoes']);
  const attempts = counted(simulatorEmbedder());
  // Started after the writes: its first pass finds them.
  const indexer = start(attempts.embedder, log);
  // Several attempts, past the breaker's threshold and through its reopening.
  await until(() => attempts.calls() >= 6);
  expect(log.lines.map((line) => line.level)).toEqual(['warn']);
  expect(await stored(attempts.embedder.model, ids)).toEqual({});

  sim.outage();
  await indexer.idle();
  // 1536 dimensions of 4 bytes each.
  expect(await stored(attempts.embedder.model, ids)).toEqual(
    Object.fromEntries(ids.map((id) => [id, 1536 * 4])),
  );
  expect(log.lines.map((line) => line.level)).toEqual(['warn', 'info']);
});

test('a text the provider refuses is set aside; the others of its batch are embedded', async () => {
  const model = 'refusing/one';
  const log = capturedLog();
  const indexer = start(
    {
      model,
      async embed(texts) {
        if (texts.some((text) => text.includes('REFUSED'))) throw new EmbeddingRefused('too long');
        return texts.map((text) => simulatedEmbedding(text, 8));
      },
    },
    log,
  );
  const ids = await addMemories(['one', 'two REFUSED', 'three', 'four', 'five']);
  await indexer.idle();
  expect(await stored(model, ids)).toEqual({
    [ids[0] as string]: 32,
    [ids[1] as string]: 0,
    [ids[2] as string]: 32,
    [ids[3] as string]: 32,
    [ids[4] as string]: 32,
  });
  expect(log.lines).toEqual([
    {
      level: 'warn',
      details: { memoryId: ids[1], model },
      message: 'the embedding provider refused a memory: it is found by its words only',
    },
  ]);
  // Nothing left to do, and nothing tried again.
  await indexer.idle();
  expect(log.lines).toHaveLength(1);
});

test('a provider that refuses every text is an outage, not a refusal of every memory', async () => {
  const model = 'refusing/all';
  const log = capturedLog();
  let calls = 0;
  const ids = await addMemories(['one', 'two']);
  start(
    {
      model,
      async embed() {
        calls += 1;
        throw new EmbeddingRefused('unknown dimensions');
      },
    },
    log,
  );
  await until(() => calls >= 10);
  expect(await stored(model, ids)).toEqual({});
  expect(log.lines.map((line) => line.level)).toEqual(['warn']);
});

test('closing abandons a call that hangs', async () => {
  sim.outage({ kind: 'hang' });
  const attempts = counted(simulatorEmbedder());
  await addMemories(['Waits for ever']);
  const indexer = start(attempts.embedder);
  await until(() => attempts.calls() >= 1);
  await indexer.close();
  running.splice(running.indexOf(indexer), 1);
});
