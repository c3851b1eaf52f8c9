/**
 * `/v1/chat/completions` through an OpenAI-compatible provider, as the official `openai`
 * package meets it: whole answers, streams, tools, images, errors and retries, usage recorded,
 * and a caller who leaves aborting the provider's call.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';

let sim: OpenAiSimulator;
let hanging: Awaited<ReturnType<typeof startHangingUpstream>>;
let gateway: GatewayServer;

const model = (id: string, provider: string, upstream: string) => ({
  id,
  provider,
  upstream,
  vision: true,
  tools: true,
  jsonOutput: true,
  contextWindow: 128000,
  price: { input: 2, output: 8 },
});

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 1 });
  hanging = await startHangingUpstream();
  gateway = await startGatewayServer(
    {
      providers: {
        sim: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        wrongkey: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_WRONG_KEY' },
        slow: { kind: 'openai', baseUrl: hanging.url, apiKeyEnv: 'TEST_SIM_KEY' },
      },
      models: [
        model('sim/gpt-4o', 'sim', 'gpt-4o'),
        model('wrongkey/gpt-4o', 'wrongkey', 'gpt-4o'),
        model('slow/gpt-4o', 'slow', 'gpt-4o'),
        { ...model('sim/text-only', 'sim', 'text-only'), vision: false, tools: false },
      ],
      router: { id: 'auto', order: ['sim/gpt-4o'] },
    },
    { TEST_SIM_KEY: 'sk-sim', TEST_WRONG_KEY: 'sk-wrong' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
  await hanging?.close();
});

const client = (maxRetries = 0) =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries });

const post = (body: unknown) =>
  fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const hello = [{ role: 'user' as const, content: 'Hello there' }];

describe('a whole completion', () => {
  test('answers in OpenAI’s shape under the catalog’s model id, with usage and routing headers', async () => {
    sim.script({
      kind: 'text',
      text: 'Hi! How can I help?',
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
    const { data, response } = await client()
      .chat.completions.create({
        model: 'sim/gpt-4o',
        messages: hello,
        max_tokens: 50,
        stop: ['\n\n'],
      })
      .withResponse();
    expect(data).toMatchObject({
      object: 'chat.completion',
      model: 'sim/gpt-4o',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi! How can I help?' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(response.headers.get('x-mnemo-model')).toBe('sim/gpt-4o');
    expect(response.headers.get('x-mnemo-provider')).toBe('sim');
    expect(response.headers.get('x-mnemo-route')).toBe('requested by name');
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Upstream: its own model name, the rest as sent, never stream_options on a whole answer.
    const sent = sim.requests.at(-1);
    expect(sent?.headers.authorization).toBe('Bearer sk-sim');
    expect(sent?.body).toEqual({
      model: 'gpt-4o',
      messages: hello,
      max_tokens: 50,
      stop: ['\n\n'],
      stream: false,
    });
  });

  test('image parts, URLs and data URLs, reach the provider as sent', async () => {
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is in these?' },
          {
            type: 'image_url' as const,
            image_url: { url: 'https://example.com/cat.png', detail: 'low' as const },
          },
          { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    const answer = await client().chat.completions.create({ model: 'sim/gpt-4o', messages });
    expect(answer.choices[0]?.message.content).toBe('You said: What is in these?');
    expect(sim.requests.at(-1)?.body.messages).toEqual(messages);

    // A photo of a few megabytes is an ordinary request, far past the memory API's 64 KiB.
    const photo = `data:image/jpeg;base64,${Buffer.alloc(3 * 1024 * 1024, 7).toString('base64')}`;
    const big = await post({
      model: 'sim/gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: photo } }] }],
    });
    expect(big.status).toBe(200);
  });

  test('tool calls come back whole; the model named must call tools', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const answer = await client().chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
      tools,
    });
    expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
    expect(answer.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      {
        id: 'call_b',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
      },
    ]);

    const refused = await client()
      .chat.completions.create({ model: 'sim/text-only', messages: hello, tools })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'model_not_capable', param: 'tools' });
  });
});

describe('a streamed completion', () => {
  test('chunks as OpenAI sends them: role first, finish_reason last, [DONE]; usage only when asked', async () => {
    sim.script({ kind: 'text', text: 'One two three' });
    const stream = await client().chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('One two three');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    for (const chunk of chunks) {
      expect(chunk.model).toBe('sim/gpt-4o');
      expect(chunk).not.toHaveProperty('usage');
    }
    // The provider was asked for usage all the same: the gateway records it.
    expect(sim.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });

    sim.script({
      kind: 'text',
      text: 'Counted',
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    });
    const counted = await client().chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const all = [];
    for await (const chunk of counted) all.push(chunk);
    expect(all.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
    for (const chunk of all.slice(0, -1)) expect(chunk.usage).toBeNull();
  });

  test('the wire: an event stream of data: lines, no-store, the routing headers', async () => {
    sim.script({ kind: 'text', text: 'Wire check' });
    const response = await post({ model: 'sim/gpt-4o', messages: hello, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(response.headers.get('x-mnemo-model')).toBe('sim/gpt-4o');
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean);
    for (const event of events) expect(event).toMatch(/^data: /);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  test('parallel tool calls streamed as deltas are rebuilt by the SDK’s stream helper', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [
        { id: 'call_1', name: 'lookup', arguments: '{"query":"first thing"}' },
        { id: 'call_2', name: 'lookup', arguments: '{"query":"second thing"}' },
      ],
    });
    const runner = client().chat.completions.stream({
      model: 'sim/gpt-4o',
      messages: hello,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'lookup', arguments: '{"query":"first thing"}' },
      },
      {
        id: 'call_2',
        type: 'function',
        function: { name: 'lookup', arguments: '{"query":"second thing"}' },
      },
    ]);
  });

  test('a provider failing mid-stream ends the stream with an error event the SDK throws', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Partial answer' });
    const stream = await client().chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
      stream: true,
    });
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(received.join('')).toBe('Partial answer');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/The server had an error/);
  });
});

describe('errors', () => {
  test('a bad body is 400 naming the parameter; an unknown model 404 model_not_found', async () => {
    const missing = await post({ model: 'sim/gpt-4o' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: {
        message: "Missing required parameter: 'messages'.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'missing_required_parameter',
      },
    });
    const badRole = await post({ model: 'sim/gpt-4o', messages: [{ role: 'tool', content: 'x' }] });
    expect(((await badRole.json()) as { error: { param: string } }).error.param).toBe(
      'messages[0].tool_call_id',
    );
    const orphan = await post({
      model: 'sim/gpt-4o',
      messages: [{ role: 'tool', content: 'x', tool_call_id: 'call_x' }],
    });
    expect(orphan.status).toBe(400);
    const temperature = await post({ model: 'sim/gpt-4o', messages: hello, temperature: 'hot' });
    expect(await temperature.json()).toMatchObject({
      error: { param: 'temperature', code: 'invalid_type', type: 'invalid_request_error' },
    });

    const unknown = await client()
      .chat.completions.create({ model: 'nope/model', messages: hello })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  test('a provider’s 429 reaches the caller with its retry headers, and the SDK’s retry succeeds', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after-ms': '10' } });
    const raw = await post({ model: 'sim/gpt-4o', messages: hello });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('x-should-retry')).toBe('true');
    expect(raw.headers.get('retry-after-ms')).toBe('10');
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe(
      'rate_limit_exceeded',
    );

    sim.script({ kind: 'error', status: 429, headers: { 'retry-after-ms': '10' } });
    sim.script({ kind: 'text', text: 'Second time lucky' });
    const before = sim.requests.length;
    const answer = await client(2).chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
    });
    expect(answer.choices[0]?.message.content).toBe('Second time lucky');
    expect(sim.requests.length - before).toBe(2);
  });

  test('a provider refusing the server’s own key is a 502 not to retry, never the caller’s 401', async () => {
    const response = await post({ model: 'wrongkey/gpt-4o', messages: hello });
    expect(response.status).toBe(502);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(
          /^The provider `wrongkey` refused this server's credentials/,
        ),
        type: 'api_error',
        param: null,
        code: 'provider_auth_failed',
      },
    });
  });
});

describe('a caller who leaves', () => {
  // The upstream answers its headers and one chunk, then waits for ever.
  const abortedWithin = (ms: number, closed: Promise<void>) =>
    Promise.race([
      closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('not aborted')), ms)),
    ]);

  test('mid-stream aborts the provider’s call', async () => {
    const closed = hanging.nextClose();
    const response = await post({ model: 'slow/gpt-4o', messages: hello, stream: true });
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await expect(abortedWithin(3000, closed)).resolves.toBeUndefined();
  });

  test('while waiting for a whole answer aborts the provider’s call too', async () => {
    const closed = hanging.nextClose();
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow/gpt-4o', messages: hello }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await hanging.nextRequest();
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await expect(abortedWithin(3000, closed)).resolves.toBeUndefined();
  });
});

describe('connections to providers', () => {
  test('are kept alive and reused from call to call', async () => {
    // Two connections at most: the pool may open a second while the first is being released.
    const before = sim.connections();
    for (let i = 0; i < 10; i += 1) {
      const answer = await client().chat.completions.create({
        model: 'sim/gpt-4o',
        messages: hello,
      });
      expect(answer.choices[0]?.message.content).toBe('You said: Hello there');
    }
    expect(sim.connections() - before).toBeLessThanOrEqual(1);
  });
});

describe('usage', () => {
  test('every call is recorded under the model that answered, failed ones included', async () => {
    sim.script({
      kind: 'text',
      text: 'Priced',
      usage: { prompt_tokens: 1000, completion_tokens: 500 },
    });
    await client().chat.completions.create({ model: 'sim/gpt-4o', messages: hello });
    sim.script({
      kind: 'text',
      text: 'Streamed',
      usage: { prompt_tokens: 2000, completion_tokens: 250 },
    });
    const stream = await client().chat.completions.create({
      model: 'sim/gpt-4o',
      messages: hello,
      stream: true,
    });
    for await (const _ of stream);
    const calls = await gateway.calls((recorded) =>
      [1000, 2000].every((tokens) => recorded.some((call) => call.promptTokens === tokens)),
    );
    expect(calls).toContainEqual({
      model: 'sim/gpt-4o',
      provider: 'sim',
      promptTokens: 1000,
      completionTokens: 500,
      costUsd: '0.006000',
      status: 200,
      kind: 'chat',
    });
    // The stream's usage was asked of the provider though the client did not ask for it.
    expect(calls).toContainEqual(
      expect.objectContaining({ promptTokens: 2000, completionTokens: 250, status: 200 }),
    );
    expect(calls).toContainEqual(
      expect.objectContaining({ model: 'wrongkey/gpt-4o', status: 502, promptTokens: 0 }),
    );
    expect(calls).toContainEqual(expect.objectContaining({ model: 'sim/gpt-4o', status: 429 }));
  });
});

/**
 * An OpenAI-style upstream that sends its headers and one chunk, then waits for ever; it tells
 * when the next request arrives and when the gateway next drops a connection.
 */
async function startHangingUpstream() {
  const waiting = { request: [] as (() => void)[], close: [] as (() => void)[] };
  const next = (list: (() => void)[]) => new Promise<void>((resolve) => list.push(resolve));
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: 'Wait' }, finish_reason: null }] })}\n\n`,
    );
    for (const resolve of waiting.request.splice(0)) resolve();
    res.on('close', () => {
      for (const resolve of waiting.close.splice(0)) resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    nextRequest: () => next(waiting.request),
    nextClose: () => next(waiting.close),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
