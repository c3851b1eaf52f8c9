/**
 * Memory search's embedding model through the gateway, against the provider simulators: the
 * wire format each kind sends (OpenAI's /embeddings, Gemini's batchEmbedContents with its task
 * types), what a failure becomes (a refusal of the texts, or an outage that the circuit breaker
 * then keeps away), and that `/v1` never offers an embedding model.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EmbeddingRefused } from '../memory/embedder.ts';
import { startGatewayServer } from '../testing/gateway-server.ts';
import { hybridSearchEnv, SEARCH_MODEL_ID, type SearchModel } from '../testing/search-config.ts';
import {
  type GeminiSimulator,
  startGeminiSimulator,
} from '../testing/simulators/gemini-simulator.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import { simulatedEmbedding } from '../testing/simulators/simulated-embedding.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { loadCatalog } from './gateway-config.ts';
import { createTransport } from './providers/transport.ts';
import { createSearchEmbedders } from './search-embedder.ts';

const OPENAI_KEY = 'sk-sim';
const GEMINI_KEY = 'gemini-sim';
let openai: OpenAiSimulator;
let gemini: GeminiSimulator;
const transport = createTransport({ firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });

beforeAll(async () => {
  openai = await startOpenAiSimulator({ apiKey: OPENAI_KEY });
  gemini = await startGeminiSimulator({ apiKey: GEMINI_KEY });
});
afterAll(async () => {
  await transport.close();
  await openai?.close();
  await gemini?.close();
});

function embedders(model: SearchModel, env: Record<string, string> = {}) {
  const located = { ...hybridSearchEnv(model), ...env };
  const catalog = loadCatalog({ file: located.MNEMO_CONFIG, variables: located });
  const built = createSearchEmbedders(catalog, transport, createCircuitBreaker());
  if (!built) throw new Error('no search model');
  return built;
}

const signal = () => AbortSignal.timeout(5000);
const texts = ['Works as a programmer', 'Likes green tea', 'Plays the cello'];

test('no search model: no embedders', () => {
  const catalog = loadCatalog(
    { file: undefined, variables: { OPENAI_API_KEY: 'k' } },
    { readFile: () => undefined },
  );
  expect(createSearchEmbedders(catalog, transport, createCircuitBreaker())).toBeUndefined();
});

describe('openai kind', () => {
  test('POST /embeddings: the texts as input, floats asked for, the vectors in order', async () => {
    const { documents, queries } = embedders({
      kind: 'openai',
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_KEY,
      dimensions: 256,
    });
    expect(documents.model).toBe(`${SEARCH_MODEL_ID}@256`);
    expect(queries.model).toBe(documents.model);
    const before = openai.requests.length;
    const vectors = await documents.embed(texts, signal());
    expect(vectors.map((vector) => Array.from(vector))).toEqual(
      texts.map((text) => Array.from(simulatedEmbedding(text, 256))),
    );
    const [request] = openai.requests.slice(before);
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(request?.body).toEqual({
      model: 'text-embedding-3-small',
      input: texts,
      encoding_format: 'float',
      dimensions: 256,
    });
    // A query is embedded the same way: OpenAI has no task types.
    await queries.embed(['green tea'], signal());
    expect(openai.requests.at(-1)?.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['green tea'],
      encoding_format: 'float',
      dimensions: 256,
    });
  });

  test('a 400 refuses the texts; a 404 (no such model) is a failure of another kind', async () => {
    const refusing = embedders({
      kind: 'openai',
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_KEY,
      upstream: 'text-embedding-ada-002',
      dimensions: 256,
    });
    const refused = await refusing.documents.embed(texts, signal()).catch((e) => e);
    expect(refused).toBeInstanceOf(EmbeddingRefused);
    expect(refused.message).toBe(
      'sim/embedder refused the texts: This model does not support specifying dimensions.',
    );
    const missing = embedders({
      kind: 'openai',
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_KEY,
      upstream: 'text-embedding-4',
    });
    const failed = await missing.documents.embed(texts, signal()).catch((e) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(EmbeddingRefused);
    expect(failed.message).toBe(
      'sim/embedder: 404: The model `text-embedding-4` does not exist or you do not have access to it.',
    );
  });

  test('after three failures in a row the model is left alone: no call goes out', async () => {
    const { documents, queries } = embedders({
      kind: 'openai',
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_KEY,
    });
    openai.outage({ kind: 'error', status: 500 });
    try {
      for (let i = 0; i < 3; i++) {
        const error = await documents.embed(texts, signal()).catch((e) => e);
        expect(error.message).toMatch(/^sim\/embedder: 500: /);
      }
    } finally {
      openai.outage();
    }
    const before = openai.requests.length;
    // Queries and documents share the model's circuit.
    const error = await queries.embed(['tea'], signal()).catch((e) => e);
    expect(error.message).toMatch(/^sim\/embedder failed repeatedly; not called again for \d+ s$/);
    expect(openai.requests.length).toBe(before);
  });

  test('unreachable and too slow are failures too', async () => {
    const down = embedders({ kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' });
    expect((await down.queries.embed(['tea'], signal()).catch((e) => e)).message).toMatch(
      /^sim\/embedder: unreachable/,
    );
    openai.outage({ kind: 'hang' });
    try {
      const { queries } = embedders({ kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'k' });
      const slow = await queries.embed(['tea'], AbortSignal.timeout(100)).catch((e) => e);
      expect(slow).toBeInstanceOf(Error);
      expect(slow).not.toBeInstanceOf(EmbeddingRefused);
    } finally {
      openai.outage();
    }
  });
});

describe('gemini kind', () => {
  test('batchEmbedContents with the task type of the purpose, 100 requests a call, in order', async () => {
    const { documents, queries } = embedders({
      kind: 'gemini',
      baseUrl: gemini.baseUrl,
      apiKey: GEMINI_KEY,
      dimensions: 768,
    });
    const many = Array.from({ length: 150 }, (_, i) => `Memory number ${i}`);
    const before = gemini.requests.length;
    const vectors = await documents.embed(many, signal());
    expect(vectors).toHaveLength(150);
    // Google's 768 first dimensions are not of unit length: the simulator's are half.
    const expected = (text: string) =>
      Array.from(simulatedEmbedding(text, 768), (value) => Math.fround(value * 0.5));
    expect(Array.from(vectors[149] ?? [])).toEqual(expected('Memory number 149'));
    const calls = gemini.requests.slice(before);
    expect(calls.map((call) => [call.path, call.body.requests])).toEqual([
      [
        '/v1beta/models/gemini-embedding-001:batchEmbedContents',
        many.slice(0, 100).map((text) => ({
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text }] },
          taskType: 'RETRIEVAL_DOCUMENT',
          outputDimensionality: 768,
        })),
      ],
      ['/v1beta/models/gemini-embedding-001:batchEmbedContents', expect.any(Array)],
    ]);
    expect((calls[1]?.body.requests as unknown[]).length).toBe(50);
    expect(calls[0]?.headers['x-goog-api-key']).toBe(GEMINI_KEY);

    await queries.embed(['tea'], signal());
    expect(gemini.requests.at(-1)?.body.requests).toEqual([
      {
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text: 'tea' }] },
        taskType: 'RETRIEVAL_QUERY',
        outputDimensionality: 768,
      },
    ]);
  });

  test('without its key nothing is sent; a bad task of its own is refused', async () => {
    const { documents } = embedders(
      { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY },
      { SIM_API_KEY: '' },
    );
    const before = gemini.requests.length;
    const error = await documents.embed(texts, signal()).catch((e) => e);
    expect(error.message).toBe(
      "sim/embedder: refused mnemo's key (401: No key for the provider sim: SIM_API_KEY is not set.)",
    );
    expect(gemini.requests.length).toBe(before);
    const tooLong = embedders({
      kind: 'gemini',
      baseUrl: gemini.baseUrl,
      apiKey: GEMINI_KEY,
      dimensions: 4096,
    });
    expect(await tooLong.documents.embed(texts, signal()).catch((e) => e)).toBeInstanceOf(
      EmbeddingRefused,
    );
  });
});

test('/v1 never offers an embedding model: not listed, not routed; /v1/embeddings stays 404', async () => {
  const gateway = await startGatewayServer(
    {
      providers: { sim: { kind: 'openai', baseUrl: openai.baseUrl, apiKeyEnv: 'SIM_API_KEY' } },
      models: [
        { id: 'sim/chat', provider: 'sim', upstream: 'gpt-4o', contextWindow: 128_000 },
        {
          id: 'sim/embedder',
          provider: 'sim',
          upstream: 'text-embedding-3-small',
          type: 'embedding',
        },
      ],
    },
    { SIM_API_KEY: OPENAI_KEY },
  );
  try {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
    const listed = (await client.models.list()).data.map((model) => model.id);
    expect(listed).toContain('sim/chat');
    expect(listed).not.toContain('sim/embedder');
    const chat = await client.chat.completions
      .create({ model: 'sim/embedder', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e) => e);
    expect(chat).toBeInstanceOf(OpenAI.NotFoundError);
    expect(chat.code).toBe('model_not_found');
    const embeddings = await client.embeddings
      .create({ model: 'sim/embedder', input: 'x' })
      .catch((e) => e);
    expect(embeddings).toBeInstanceOf(OpenAI.NotFoundError);
  } finally {
    await gateway.close();
  }
});
