/**
 * The router model `auto` over HTTP: the operator's order, models that cannot serve a request
 * left out, a failing provider passed over before anything reached the client, its circuit
 * opened, and headers that say what was chosen and why.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';
import type { Catalog, ModelConfig } from './catalog.ts';
import type { ChatRequest } from './chat.schemas.ts';
import { planRoute, type RoutePlan } from './router.ts';

let primary: OpenAiSimulator;
let backup: OpenAiSimulator;
let gateway: GatewayServer;

const model = (id: string, upstream: string, extra: Record<string, unknown> = {}) => ({
  id,
  provider: id.split('/')[0],
  upstream,
  vision: true,
  tools: true,
  jsonOutput: true,
  contextWindow: 128000,
  price: { input: 1, output: 2 },
  ...extra,
});

beforeAll(async () => {
  primary = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 0 });
  backup = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 0 });
  gateway = await startGatewayServer(
    {
      providers: {
        primary: { kind: 'openai', baseUrl: primary.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        backup: { kind: 'openai', baseUrl: backup.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        // Nothing listens on the discard port: every call is refused.
        down: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_SIM_KEY' },
      },
      models: [
        model('primary/small', 'small', { contextWindow: 200 }),
        model('primary/text', 'text', { vision: false }),
        model('backup/large', 'large'),
        model('down/any', 'any'),
      ],
      router: { id: 'auto', order: ['primary/small', 'primary/text', 'backup/large'] },
    },
    { TEST_SIM_KEY: 'sk-sim' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await primary?.close();
  await backup?.close();
});

const post = (body: Record<string, unknown>) =>
  fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'auto', ...body }),
  });

const say = (text: string) => [{ role: 'user', content: text }];
const image = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Describe it' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ],
  },
];

describe('choosing', () => {
  test('the first model in order that can serve it answers, named in `model` and the headers', async () => {
    const response = await post({ messages: say('Hi') });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('primary/small');
    expect(response.headers.get('x-mnemo-model')).toBe('primary/small');
    expect(response.headers.get('x-mnemo-provider')).toBe('primary');
    expect(response.headers.get('x-mnemo-route')).toBe(
      "primary/small: first in the router's order that can serve it and answered (needs ~5 tokens)",
    );
    expect(primary.requests.at(-1)?.body.model).toBe('small');
  });

  test('a prompt too long for a model’s window, or an image for a model without vision, passes it by', async () => {
    const long = await post({ messages: say('word '.repeat(200)) });
    expect(long.headers.get('x-mnemo-model')).toBe('primary/text');
    expect(long.headers.get('x-mnemo-route')).toMatch(
      /; passed over primary\/small: prompt of ~\d+ tokens exceeds its 200-token window$/,
    );

    const picture = await post({ messages: image, max_completion_tokens: 300 });
    expect(picture.headers.get('x-mnemo-model')).toBe('backup/large');
    expect(picture.headers.get('x-mnemo-route')).toMatch(
      /needs images, ~\d+ tokens\); passed over primary\/small: prompt of ~\d+ tokens exceeds its 200-token window; primary\/text: no vision$/,
    );
  });

  test('when no model of the router can serve it: 400 model_not_available, saying why', async () => {
    const response = await post({
      messages: say('Hi'),
      response_format: { type: 'json_object' },
      max_completion_tokens: 500_000,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(
          /^No model of the router `auto` can serve this request \(needs JSON output, ~500\d+ tokens\): primary\/small: .*; primary\/text: .*; backup\/large: prompt of ~500\d+ tokens exceeds its 128000-token window\.$/,
        ),
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_available',
      },
    });
  });
});

describe('falling back before the first byte', () => {
  test('a 5xx, a 429 or a dropped connection passes the model over; the next answers', async () => {
    for (const failure of [
      { kind: 'error', status: 503 },
      { kind: 'error', status: 429, headers: { 'retry-after': '0' } },
      { kind: 'drop' },
    ] as const) {
      primary.script(failure);
      const response = await post({ messages: say('Hi') });
      expect(response.status, failure.kind).toBe(200);
      expect(response.headers.get('x-mnemo-model')).toBe('primary/text');
      expect(response.headers.get('x-mnemo-route')).toMatch(
        /; passed over primary\/small: provider (answered (503|429)|unreachable)$/,
      );
    }
  });

  test('a stream falls back too, and the SDK sees only the model that answered', async () => {
    primary.script({ kind: 'error', status: 500 });
    primary.script({ kind: 'error', status: 502 });
    backup.script({ kind: 'text', text: 'From the backup' });
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'auto', messages: [{ role: 'user', content: 'Hi' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.model).toBe('backup/large');
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('From the backup');
    expect(response.headers.get('x-mnemo-model')).toBe('backup/large');
    expect(response.headers.get('x-mnemo-route')).toMatch(
      /passed over primary\/small: provider answered 500; primary\/text: provider answered 502$/,
    );
  });

  test('a 400 from a provider is the caller’s to fix: no fallback', async () => {
    primary.script({ kind: 'error', status: 400 });
    const response = await post({ messages: say('Hi') });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(response.headers.get('x-mnemo-model')).toBe('primary/small');
  });
});

describe('the circuit breaker', () => {
  test('after three failures in a row a provider is kept out of the router’s choices', async () => {
    // A success closes the circuit whatever earlier tests left; then three failures in a row.
    expect((await post({ model: 'primary/text', messages: say('Hi') })).status).toBe(200);
    for (let i = 0; i < 3; i += 1) primary.script({ kind: 'error', status: 500 });
    // The first call fails on both primary models, the second on one: then the circuit opens.
    for (let i = 0; i < 2; i += 1) {
      expect((await post({ messages: say('Hi') })).headers.get('x-mnemo-model')).toBe(
        'backup/large',
      );
    }
    const before = primary.requests.length;
    const kept = await post({ messages: say('Hi') });
    expect(kept.status).toBe(200);
    expect(kept.headers.get('x-mnemo-model')).toBe('backup/large');
    expect(kept.headers.get('x-mnemo-route')).toMatch(
      /passed over primary\/small: provider primary is failing, circuit open; primary\/text: provider primary is failing, circuit open$/,
    );
    expect(primary.requests.length).toBe(before);

    // A model named directly is still tried: the caller chose it.
    const direct = await post({ model: 'primary/text', messages: say('Hi') });
    expect(direct.status).toBe(200);
  });
});

describe('usage', () => {
  test('the call is recorded under the model that answered, not `auto`', async () => {
    const calls = await gateway.calls();
    expect(calls.map((call) => call.model)).not.toContain('auto');
    expect(calls).toContainEqual(expect.objectContaining({ model: 'backup/large', status: 200 }));
  });
});

describe('planning, for what only a provider kind decides', () => {
  test('several choices (`n`) pass over a provider kind that gives one per call', () => {
    const provider = (name: string, kind: 'openai' | 'anthropic') =>
      [name, { name, kind, baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'X', apiKey: 'x' }] as const;
    const catalog: Catalog = {
      providers: new Map([provider('claude', 'anthropic'), provider('gpt', 'openai')]),
      models: [
        { ...model('claude/sonnet', 'sonnet'), provider: 'claude' } as ModelConfig,
        { ...model('gpt/4o', '4o'), provider: 'gpt' } as ModelConfig,
      ],
      router: { id: 'auto', order: ['claude/sonnet', 'gpt/4o'] },
      embeddingModels: [],
      search: { embeddingModel: undefined },
    };
    const request = (n: number) =>
      ({ model: 'auto', n, messages: [{ role: 'user', content: 'Hi' }] }) as ChatRequest;
    const two = planRoute(request(2), catalog) as RoutePlan;
    expect(two.candidates.map((m) => m.id)).toEqual(['gpt/4o']);
    expect(two.leftOut).toEqual(['claude/sonnet: one choice per call (no n)']);
    const one = planRoute(request(1), catalog) as RoutePlan;
    expect(one.candidates.map((m) => m.id)).toEqual(['claude/sonnet', 'gpt/4o']);
  });
});
