import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AnthropicSimulator,
  startAnthropicSimulator,
} from '../../../testing/simulators/anthropic-simulator.ts';
import type { ModelConfig, ProviderConfig } from '../../catalog.ts';
import type { ChatRequest } from '../../chat.schemas.ts';
import {
  type ChatChunk,
  type Provider,
  type ProviderCall,
  type Transport,
  type TransportResponse,
  UpstreamStreamError,
} from '../../provider.ts';
import { createTransport } from '../transport.ts';
import { createAnthropicProvider } from './anthropic.provider.ts';

const apiKey = 'sk-ant-provider-test';
const transport = createTransport({ firstByteTimeoutMs: 2000, idleTimeoutMs: 2000 });
let sim: AnthropicSimulator;
let provider: Provider;

const model: ModelConfig = {
  id: 'anthropic/claude-sonnet-4-5',
  provider: 'anthropic',
  upstream: 'claude-sonnet-4-5',
  vision: true,
  tools: true,
  jsonOutput: true,
  reasoning: false,
  contextWindow: 200_000,
  price: { input: 3, output: 15 },
};

const configOf = (fields: Partial<ProviderConfig> = {}): ProviderConfig => ({
  name: 'anthropic',
  kind: 'anthropic',
  baseUrl: sim.baseUrl,
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  apiKey,
  ...fields,
});

beforeEach(async () => {
  sim = await startAnthropicSimulator({ apiKey });
  provider = createAnthropicProvider(configOf(), transport);
});

afterEach(async () => {
  await sim.close();
});

afterAll(async () => {
  await transport.close();
});

const call = (fields: Partial<ChatRequest> = {}, signal = new AbortController().signal) =>
  ({
    request: {
      model: model.id,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      ...fields,
    },
    model,
    signal,
  }) satisfies ProviderCall;

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function streamed(fields: Partial<ChatRequest> = {}): Promise<ChatChunk[]> {
  const outcome = await provider.stream(call(fields));
  if (!outcome.ok) throw new Error(`failed: ${JSON.stringify(outcome.failure)}`);
  return collect(outcome.value);
}

/** Every rule of ChatChunk's contract, for one choice. */
function expectChunkRules(chunks: ChatChunk[]): void {
  const withChoices = chunks.slice(0, -1);
  expect(withChoices[0]?.choices[0]?.delta.role).toBe('assistant');
  expect(withChoices.slice(1).every((chunk) => chunk.choices[0]?.delta.role === undefined)).toBe(
    true,
  );
  expect(withChoices.every((chunk) => chunk.choices.length === 1)).toBe(true);
  expect(withChoices.slice(0, -1).every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(
    true,
  );
  expect(withChoices.at(-1)?.choices[0]?.finish_reason).not.toBeNull();
  expect(withChoices.every((chunk) => chunk.usage === undefined)).toBe(true);
  expect(chunks.at(-1)?.choices).toEqual([]);
  expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  expect(chunks[0]?.id).toMatch(/^msg_/);
  expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
  expect(chunks.every((chunk) => chunk.model === model.id)).toBe(true);
  expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
}

/** Tool calls rebuilt from their deltas, as the OpenAI SDKs do. */
function toolCallsOf(chunks: ChatChunk[]) {
  const calls: { id?: string; type?: string; name?: string; arguments: string }[] = [];
  for (const chunk of chunks) {
    for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
      calls[delta.index] ??= { arguments: '' };
      const call = calls[delta.index] as (typeof calls)[number];
      if (delta.id !== undefined) {
        expect(call.id).toBeUndefined();
        Object.assign(call, { id: delta.id, type: delta.type, name: delta.function?.name });
      }
      call.arguments += delta.function?.arguments ?? '';
    }
  }
  return calls;
}

describe('complete', () => {
  it('answers text as a chat completion with exact usage', async () => {
    sim.script({
      kind: 'text',
      text: 'Hi! How can I help?',
      usage: {
        input_tokens: 20,
        cache_creation_input_tokens: 5,
        cache_read_input_tokens: 30,
        output_tokens: 6,
      },
    });
    const outcome = await provider.complete(call());
    expect(outcome).toEqual({
      ok: true,
      value: {
        id: expect.stringMatching(/^msg_01/),
        object: 'chat.completion',
        created: expect.any(Number),
        model: 'anthropic/claude-sonnet-4-5',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hi! How can I help?', refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: {
          prompt_tokens: 55,
          completion_tokens: 6,
          total_tokens: 61,
          prompt_tokens_details: { cached_tokens: 30 },
        },
      },
    });
  });

  it('answers tool calls, with the text before them', async () => {
    sim.script({
      kind: 'tool_calls',
      text: 'Let me check.',
      calls: [
        { id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
        { id: 'toolu_time', name: 'get_time', input: {} },
      ],
    });
    const outcome = await provider.complete(call());
    if (!outcome.ok) throw new Error('failed');
    expect(outcome.value.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Let me check.',
          refusal: null,
          tool_calls: [
            {
              id: 'toolu_weather',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'toolu_time', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    // ceil(("Be brief." + "Hello there").length / 4); ceil(("Let me check." +
    // "get_weather" + '{"city":"Paris"}' + "get_time" + "{}").length / 4).
    expect(outcome.value.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 13,
      total_tokens: 18,
    });
  });

  it('answers JSON mode with the forced tool’s input as content', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [{ id: 'toolu_1', name: 'json_response', input: { city: 'Paris', days: 3 } }],
    });
    const outcome = await provider.complete(call({ response_format: { type: 'json_object' } }));
    if (!outcome.ok) throw new Error('failed');
    expect(outcome.value.choices[0]).toMatchObject({
      message: { role: 'assistant', content: '{"city":"Paris","days":3}', refusal: null },
      finish_reason: 'stop',
    });
    expect(outcome.value.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('sends the translated request, with Anthropic’s headers, to /v1/messages', async () => {
    sim.script({ kind: 'text', text: 'Both look fine.' });
    const outcome = await provider.complete(
      call({
        messages: [
          { role: 'system', content: 'You are a weather assistant.' },
          { role: 'developer', content: 'Use metric units.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather where these were taken?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/rome.jpg' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              {
                id: 'toolu_2',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
          { role: 'tool', tool_call_id: 'toolu_2', content: '24°C' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'The weather in a city.',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' } },
                required: ['city'],
              },
            },
          },
        ],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        max_completion_tokens: 300,
        stop: ['\n\nUser:'],
        temperature: 1.4,
        user: 'user-42',
      }),
    );
    expect(outcome.ok).toBe(true);
    expect(sim.requests).toHaveLength(1);
    const [sent] = sim.requests;
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers).toMatchObject({
      'x-api-key': apiKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    });
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      system: 'You are a weather assistant.\n\nUse metric units.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather where these were taken?' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
            },
            { type: 'image', source: { type: 'url', url: 'https://example.com/rome.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '24°C' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city.',
          input_schema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      stop_sequences: ['\n\nUser:'],
      temperature: 1,
      metadata: { user_id: 'user-42' },
    });
  });

  it('refuses n above 1 without calling Anthropic', async () => {
    const outcome = await provider.complete(call({ n: 3 }));
    expect(outcome).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 400,
        error: {
          message: 'Anthropic models give one choice per request: `n` must be 1.',
          type: 'invalid_request_error',
          param: 'n',
          code: 'unsupported_value',
        },
      },
    });
    expect(sim.requests).toHaveLength(0);
  });
});

describe('stream', () => {
  it('streams text by the chunk rules, with exact usage last', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    sim.script({ kind: 'text', text });
    const chunks = await streamed();

    expectChunkRules(chunks);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const middle = chunks.slice(1, -2);
    expect(middle.length).toBeGreaterThan(3);
    expect(middle.map((chunk) => chunk.choices[0]?.delta.content).join('')).toBe(text);
    expect(chunks.at(-2)?.choices[0]).toEqual({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: 'stop',
    });
    // Input from message_start: ceil(20 / 4); output from message_delta: ceil(44 / 4).
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 11,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(sim.requests[0]?.body.stream).toBe(true);
  });

  it('streams parallel tool calls that rebuild to the calls made', async () => {
    sim.script({
      kind: 'tool_calls',
      text: 'Checking both.',
      calls: [
        { id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
        { id: 'toolu_time', name: 'get_time', input: { timezone: 'Europe/Paris' } },
      ],
    });
    const chunks = await streamed();

    expectChunkRules(chunks);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      'Checking both.',
    );
    expect(toolCallsOf(chunks)).toEqual([
      {
        id: 'toolu_weather',
        type: 'function',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit":"celsius"}',
      },
      {
        id: 'toolu_time',
        type: 'function',
        name: 'get_time',
        arguments: '{"timezone":"Europe/Paris"}',
      },
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams JSON mode as content', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [{ id: 'toolu_1', name: 'json_response', input: { city: 'Paris', days: 3 } }],
    });
    const chunks = await streamed({
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'trip', schema: { type: 'object' } },
      },
    });
    expectChunkRules(chunks);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      '{"city":"Paris","days":3}',
    );
    expect(toolCallsOf(chunks)).toEqual([]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('throws UpstreamStreamError on an error event mid-stream, after the text before it', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const outcome = await provider.stream(call());
    if (!outcome.ok) throw new Error('failed');
    let received = '';
    const error = await (async () => {
      for await (const chunk of outcome.value) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect((error as UpstreamStreamError).error).toEqual({
      message: 'Overloaded',
      type: 'api_error',
      param: null,
      code: 'overloaded_error',
    });
    expect(received).toBe('Half an answer');
  });

  it('fails with the status before any chunk when Anthropic refuses the stream', async () => {
    sim.script({ kind: 'error', status: 529 });
    expect(await provider.stream(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 529,
        error: { message: 'Overloaded', type: 'api_error', param: null, code: 'overloaded_error' },
        retryAfterMs: undefined,
      },
    });
  });

  it('throws UpstreamStreamError when the body goes silent mid-answer', async () => {
    // undici checks body timeouts on a timer of about a second's resolution.
    const slow = await startAnthropicSimulator({ apiKey, chunkDelayMs: 3000 });
    const impatient = createTransport({ firstByteTimeoutMs: 2000, idleTimeoutMs: 100 });
    try {
      const outcome = await createAnthropicProvider(
        configOf({ baseUrl: slow.baseUrl }),
        impatient,
      ).stream(call());
      if (!outcome.ok) throw new Error('failed');
      const error = await collect(outcome.value).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamStreamError);
      expect((error as UpstreamStreamError).error).toMatchObject({
        type: 'api_error',
        message: expect.stringMatching(/^The provider’s stream broke off: /),
      });
    } finally {
      await impatient.close();
      await slow.close();
    }
  });

  it('rethrows the abort, not an upstream error, when the call is aborted', async () => {
    sim.script({ kind: 'text', text: 'A long answer that keeps going and going and going.' });
    const abort = new AbortController();
    const outcome = await provider.stream(call({}, abort.signal));
    if (!outcome.ok) throw new Error('failed');
    const error = await (async () => {
      for await (const _ of outcome.value) abort.abort();
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UpstreamStreamError);
  });

  it('releases the connection when the consumer stops early', async () => {
    const released: string[] = [];
    const watching: Transport = {
      async post(...args) {
        const sent = await transport.post(...args);
        if (!sent.ok) return sent;
        return { ok: true, value: watched(sent.value, released) };
      },
    };
    sim.script({ kind: 'text', text: 'One two three four five six seven eight nine ten.' });
    const outcome = await createAnthropicProvider(configOf(), watching).stream(call());
    if (!outcome.ok) throw new Error('failed');
    let seen = 0;
    for await (const _ of outcome.value) if (++seen === 2) break;
    expect(seen).toBe(2);
    expect(released).toContain('iterator returned');
  });
});

/** The response, with its body's early stop recorded. */
function watched(response: TransportResponse, released: string[]): TransportResponse {
  const { body } = response;
  return {
    ...response,
    body: {
      text: () => body.text(),
      json: () => body.json(),
      dump: () => {
        released.push('dumped');
        return body.dump();
      },
      [Symbol.asyncIterator]() {
        const iterator = body[Symbol.asyncIterator]();
        return {
          next: () => iterator.next(),
          async return(value?: unknown) {
            released.push('iterator returned');
            return (await iterator.return?.(value)) ?? { done: true, value: undefined };
          },
        };
      },
    },
  };
}

describe('failures', () => {
  it('maps a 400 to a status failure in OpenAI’s shape', async () => {
    sim.script({
      kind: 'error',
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'messages.0.content: Field required' },
        request_id: 'req_1',
      },
    });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 400,
        error: {
          message: 'messages.0.content: Field required',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
        retryAfterMs: undefined,
      },
    });
  });

  it('maps a 429 with its retry-after', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '7' } });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 429,
        error: {
          message: 'Number of request tokens has exceeded your per-minute rate limit.',
          type: 'rate_limit_error',
          param: null,
          code: 'rate_limit_exceeded',
        },
        retryAfterMs: 7000,
      },
    });
  });

  it.each([
    [500, { message: 'Internal server error', type: 'api_error', param: null, code: null }],
    [529, { message: 'Overloaded', type: 'api_error', param: null, code: 'overloaded_error' }],
  ])('maps a %i', async (status, error) => {
    sim.script({ kind: 'error', status });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: { kind: 'status', status, error, retryAfterMs: undefined },
    });
  });

  it('describes an error body in no known shape by its status', async () => {
    sim.script({ kind: 'error', status: 502, body: '<html>Bad gateway</html>' });
    const outcome = await provider.complete(call());
    expect(outcome).toMatchObject({
      ok: false,
      failure: {
        kind: 'status',
        status: 502,
        error: { message: 'The provider answered with status 502.', type: 'api_error' },
      },
    });
  });

  it('reports a refused key (401, 403) as key-refused', async () => {
    const wrongKey = createAnthropicProvider(configOf({ apiKey: 'sk-ant-wrong' }), transport);
    expect(await wrongKey.complete(call())).toEqual({
      ok: false,
      failure: { kind: 'key-refused', status: 401, message: 'invalid x-api-key' },
    });
    sim.script({ kind: 'error', status: 403 });
    expect(await provider.stream(call())).toMatchObject({
      ok: false,
      failure: { kind: 'key-refused', status: 403 },
    });
  });

  it('reports a missing key as key-refused without calling Anthropic', async () => {
    const keyless = createAnthropicProvider(configOf({ apiKey: undefined }), transport);
    const failure = {
      kind: 'key-refused',
      status: 401,
      message: 'No key for the provider anthropic: ANTHROPIC_API_KEY is not set.',
    };
    expect(await keyless.complete(call())).toEqual({ ok: false, failure });
    expect(await keyless.stream(call())).toEqual({ ok: false, failure });
    expect(sim.requests).toHaveLength(0);
  });

  it('reports a dropped connection as unreachable', async () => {
    sim.script({ kind: 'drop' });
    expect(await provider.complete(call())).toMatchObject({
      ok: false,
      failure: { kind: 'unreachable' },
    });
  });

  it('reports a 200 whose body is not a message as a 502', async () => {
    sim.script({ kind: 'error', status: 200, body: { hello: 'world' } });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 502,
        error: {
          message: 'The provider answered with a body that is not a message.',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    });
  });

  it('reports a hang past the first-byte timeout as timeout', async () => {
    const impatient = createTransport({ firstByteTimeoutMs: 200, idleTimeoutMs: 200 });
    try {
      sim.script({ kind: 'hang' });
      const started = Date.now();
      const outcome = await createAnthropicProvider(configOf(), impatient).complete(call());
      expect(outcome).toEqual({ ok: false, failure: { kind: 'timeout' } });
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await impatient.close();
    }
  });
});
