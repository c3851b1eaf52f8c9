import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type GeminiSimulator,
  type Scripted,
  startGeminiSimulator,
} from '../../../testing/simulators/gemini-simulator.ts';
import type { ModelConfig } from '../../catalog.ts';
import type { ChatMessage, ChatRequest } from '../../chat.schemas.ts';
import {
  type ChatChunk,
  type Provider,
  type ProviderCall,
  UpstreamStreamError,
} from '../../provider.ts';
import { type ClosableTransport, createTransport } from '../transport.ts';
import { createGeminiProvider } from './gemini.provider.ts';

const apiKey = 'gemini-test-key';
const model: ModelConfig = {
  id: 'google/gemini-2.5-flash',
  provider: 'google',
  upstream: 'gemini-2.5-flash',
  vision: true,
  tools: true,
  jsonOutput: true,
  reasoning: false,
  contextWindow: 1_048_576,
  price: { input: 0.3, output: 2.5 },
};

let sim: GeminiSimulator;
let transport: ClosableTransport;
let provider: Provider;

function providerFor(baseUrl: string, key: string | undefined, over = transport): Provider {
  return createGeminiProvider(
    { name: 'google', kind: 'gemini', baseUrl, apiKeyEnv: 'GEMINI_API_KEY', apiKey: key },
    over,
  );
}

beforeEach(async () => {
  sim = await startGeminiSimulator({ apiKey });
  transport = createTransport({ firstByteTimeoutMs: 2000, idleTimeoutMs: 2000 });
  provider = providerFor(sim.baseUrl, apiKey);
});

afterEach(async () => {
  await transport.close();
  await sim.close();
});

const hello: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello there' },
];

const call = (messages: ChatMessage[] = hello, rest: Partial<ChatRequest> = {}): ProviderCall => ({
  request: { model: model.id, messages, ...rest },
  model,
  signal: new AbortController().signal,
});

async function completed(scripted: Scripted, target: ProviderCall = call()) {
  sim.script(scripted);
  const outcome = await provider.complete(target);
  if (!outcome.ok) throw new Error(`expected a completion, got ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
}

async function streamed(scripted: Scripted, target: ProviderCall = call()) {
  sim.script(scripted);
  const outcome = await provider.stream(target);
  if (!outcome.ok) throw new Error(`expected a stream, got ${JSON.stringify(outcome.failure)}`);
  const chunks: ChatChunk[] = [];
  for await (const chunk of outcome.value) chunks.push(chunk);
  return chunks;
}

/** Every rule provider.ts states for a chunk stream, checked for `choices` choices. */
function expectChunkRules(chunks: readonly ChatChunk[], choices: number) {
  const first = chunks[0];
  expect(chunks.every((chunk) => chunk.id === first?.id && chunk.created === first?.created)).toBe(
    true,
  );
  expect(
    chunks.every((chunk) => chunk.model === model.id && chunk.object === 'chat.completion.chunk'),
  ).toBe(true);
  const usageChunks = chunks.filter((chunk) => chunk.choices.length === 0);
  expect(usageChunks).toHaveLength(1);
  expect(chunks.at(-1)).toBe(usageChunks[0]);
  expect(usageChunks[0]?.usage).toBeDefined();
  for (let index = 0; index < choices; index++) {
    const own = chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.index === index));
    expect(own[0]?.delta.role).toBe('assistant');
    expect(own.at(-1)?.finish_reason).not.toBeNull();
    expect(own.slice(0, -1).every((choice) => choice.finish_reason === null)).toBe(true);
  }
}

describe('Gemini provider: complete', () => {
  it('answers text as a chat.completion named by the catalog id, with exact usage', async () => {
    const completion = await completed({ kind: 'text', text: 'Hi! How can I help?' });
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-[\w-]{22}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'google/gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi! How can I help?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      // ceil("Be brief.Hello there".length / 4) = 5; ceil("Hi! How can I help?".length / 4) = 5.
      usage: {
        prompt_tokens: 5,
        completion_tokens: 5,
        total_tokens: 10,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      search: '',
      stream: false,
    });
    expect(sim.requests[0]?.headers['x-goog-api-key']).toBe(apiKey);
    expect(sim.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('answers function calls as tool calls, and sends the signed call back signed', async () => {
    const completion = await completed({
      kind: 'tool_calls',
      calls: [
        { name: 'get_weather', args: { city: 'Paris' }, thoughtSignature: 'CiQBVKhc7w==' },
        { name: 'get_time', args: { timezone: 'Europe/Paris' } },
      ],
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const calls = choice?.message.tool_calls ?? [];
    expect(calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}__thought__CiQBVKhc7w==$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
      },
    ]);
    // The names and JSON arguments of both calls: ceil(62 / 4).
    expect(completion.usage.completion_tokens).toBe(16);

    const [weather, time] = calls;
    await completed(
      { kind: 'text', text: 'Sunny, 10:00.' },
      call([
        ...hello,
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: weather?.id ?? '', content: '{"sky":"sunny"}' },
        { role: 'tool', tool_call_id: time?.id ?? '', content: '10:00' },
      ]),
    );
    expect(sim.requests[1]?.body.contents?.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'CiQBVKhc7w==',
          },
          { functionCall: { name: 'get_time', args: { timezone: 'Europe/Paris' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { sky: 'sunny' } } },
          { functionResponse: { name: 'get_time', response: { result: '10:00' } } },
        ],
      },
    ]);
  });

  it('reports usage exactly: thoughts in the completion, cached tokens in the details', async () => {
    const completion = await completed({
      kind: 'text',
      text: 'Done.',
      usage: {
        promptTokenCount: 120,
        candidatesTokenCount: 8,
        thoughtsTokenCount: 40,
        cachedContentTokenCount: 100,
      },
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 48,
      total_tokens: 168,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 40 },
    });
  });

  it('maps a MAX_TOKENS candidate to length and n to candidates', async () => {
    const completion = await completed(
      { kind: 'text', text: 'Cut sho', finishReason: 'MAX_TOKENS' },
      call(hello, { n: 2, max_tokens: 2 }),
    );
    expect(completion.choices.map((choice) => [choice.index, choice.finish_reason])).toEqual([
      [0, 'length'],
      [1, 'length'],
    ]);
    expect(sim.requests[0]?.body.generationConfig).toEqual({
      candidateCount: 2,
      maxOutputTokens: 2,
    });
  });

  it('fails a blocked prompt with 400 invalid_prompt', async () => {
    sim.script({ kind: 'blocked', blockReason: 'SAFETY' });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 400,
        error: {
          message: 'Invalid prompt: the provider blocked it (SAFETY).',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_prompt',
        },
      },
    });
  });

  it('sends exactly the translated body of a rich request', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, forecast: { type: 'string' } },
      required: ['city', 'forecast'],
      additionalProperties: false,
    };
    const weatherCall = {
      id: 'call_abc',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    };
    await completed(
      { kind: 'text', text: '{"city":"Paris","forecast":"sunny"}' },
      call(
        [
          { role: 'system', content: 'You are a weather bot.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What city is this, and its weather?' },
              {
                type: 'image_url',
                image_url: { url: 'https://example.com/paris.png', detail: 'high' },
              },
              { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            ],
          },
          { role: 'assistant', content: null, tool_calls: [weatherCall] },
          { role: 'tool', tool_call_id: 'call_abc', content: 'sunny, 24°C' },
          { role: 'developer', content: 'Answer as JSON.' },
        ],
        {
          tools: [
            {
              type: 'function',
              function: {
                name: 'get_weather',
                description: 'Current weather of a city',
                parameters: { type: 'object', properties: { city: { type: 'string' } } },
              },
            },
          ],
          tool_choice: 'auto',
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'answer', schema, strict: true },
          },
          max_completion_tokens: 300,
          temperature: 0.2,
          top_p: 0.95,
          stop: 'END',
          seed: 42,
          parallel_tool_calls: true,
          stream: false,
        },
      ),
    );
    expect(sim.requests[0]?.body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What city is this, and its weather?' },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/paris.png' } },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { result: 'sunny, 24°C' } } },
          ],
        },
      ],
      systemInstruction: {
        parts: [{ text: 'You are a weather bot.' }, { text: 'Answer as JSON.' }],
      },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather of a city',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {
        stopSequences: ['END'],
        maxOutputTokens: 300,
        temperature: 0.2,
        topP: 0.95,
        seed: 42,
        responseMimeType: 'application/json',
        responseJsonSchema: schema,
      },
    });
  });

  it('refuses tool arguments that are not JSON with a 400, without calling', async () => {
    const outcome = await provider.complete(
      call([
        ...hello,
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{oops' } }],
        },
      ]),
    );
    expect(outcome).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status: 400,
        error: {
          message:
            "Invalid value for 'messages[2].tool_calls[0].function.arguments': the arguments must be a JSON object.",
          type: 'invalid_request_error',
          param: 'messages[2].tool_calls[0].function.arguments',
          code: 'invalid_value',
        },
      },
    });
    expect(sim.requests).toHaveLength(0);
  });
});

describe('Gemini provider: stream', () => {
  it('streams text by the chunk rules, usage last', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const chunks = await streamed({ kind: 'text', text });
    expectChunkRules(chunks, 1);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.at(-2)?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 11,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(chunks[0]?.id).toMatch(/^chatcmpl-[\w-]{22}$/);
    expect(sim.requests[0]).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      search: '?alt=sse',
      stream: true,
    });
  });

  it('streams every candidate as its own choice', async () => {
    const chunks = await streamed({ kind: 'text', text: 'one two' }, call(hello, { n: 2 }));
    expectChunkRules(chunks, 2);
    for (const index of [0, 1]) {
      const content = chunks
        .flatMap((chunk) => chunk.choices.filter((choice) => choice.index === index))
        .map((choice) => choice.delta.content ?? '')
        .join('');
      expect(content).toBe('one two');
    }
  });

  it('streams parallel tool calls, each whole with its index and id', async () => {
    const chunks = await streamed({
      kind: 'tool_calls',
      calls: [
        { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
        { name: 'get_time', args: { timezone: 'Europe/Paris' }, id: 'fc_time' },
      ],
    });
    expectChunkRules(chunks, 1);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
      {
        index: 1,
        id: 'fc_time',
        type: 'function',
        function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
      },
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('takes the usage from the last event', async () => {
    const chunks = await streamed({
      kind: 'text',
      text: 'A longer answer in several pieces.',
      usage: { promptTokenCount: 30, candidatesTokenCount: 9, thoughtsTokenCount: 21 },
    });
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 30,
      total_tokens: 60,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 21 },
    });
  });

  it('throws an UpstreamStreamError for an error event mid-stream', async () => {
    sim.script({ kind: 'error-mid-stream', text: 'Half an answer' });
    const outcome = await provider.stream(call());
    if (!outcome.ok) throw new Error('expected the stream to start');
    let received = '';
    const error = await (async () => {
      for await (const chunk of outcome.value) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((e) => e);
    expect(received).toBe('Half an answer');
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect(error.error).toEqual({
      message:
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      type: 'api_error',
      param: null,
      code: 'internal',
    });
  });

  it('settles with the failure when the upstream status is not 200', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '3' } });
    const outcome = await provider.stream(call());
    expect(outcome).toMatchObject({
      ok: false,
      failure: {
        kind: 'status',
        status: 429,
        retryAfterMs: 3000,
        error: { type: 'rate_limit_error' },
      },
    });
  });

  it('releases the connection when the consumer stops early', async () => {
    const slow = await startGeminiSimulator({ apiKey, chunkDelayMs: 25 });
    // One connection: a stream still holding it would queue the next request behind its end.
    const single = createTransport({
      firstByteTimeoutMs: 2000,
      idleTimeoutMs: 2000,
      connectionsPerOrigin: 1,
    });
    try {
      const slowProvider = providerFor(slow.baseUrl, apiKey, single);
      slow.script({ kind: 'text', text: 'word '.repeat(200) });
      const outcome = await slowProvider.stream(call());
      if (!outcome.ok) throw new Error('expected the stream to start');
      for await (const chunk of outcome.value) {
        if (chunk.choices[0]?.delta.content) break;
      }
      const started = Date.now();
      const next = await slowProvider.complete(call());
      expect(next.ok).toBe(true);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await single.close();
      await slow.close();
    }
  });
});

describe('Gemini provider: failures', () => {
  it.each([
    [400, 'invalid_request_error', 'invalid_argument', 'Request contains an invalid argument.'],
    [404, 'invalid_request_error', 'not_found', 'Requested entity was not found.'],
    [
      500,
      'api_error',
      'internal',
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    ],
    [503, 'api_error', 'unavailable', 'The model is overloaded. Please try again later.'],
  ])('translates a %i into its status with OpenAI’s error', async (status, type, code, message) => {
    sim.script({ kind: 'error', status });
    expect(await provider.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'status',
        status,
        error: { message, type, param: null, code },
        retryAfterMs: undefined,
      },
    });
  });

  it('takes a 429’s wait from a retry-after header, else from RetryInfo', async () => {
    sim.script({ kind: 'error', status: 429, headers: { 'retry-after': '7' } });
    sim.script({ kind: 'error', status: 429 });
    const expected = (retryAfterMs: number) => ({
      ok: false,
      failure: {
        kind: 'status',
        status: 429,
        error: {
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
          type: 'rate_limit_error',
          param: null,
          code: 'resource_exhausted',
        },
        retryAfterMs,
      },
    });
    expect(await provider.complete(call())).toEqual(expected(7000));
    expect(await provider.complete(call())).toEqual(expected(1000));
  });

  it('takes a key Google does not know for the key refused', async () => {
    const wrong = providerFor(sim.baseUrl, 'not-the-key');
    expect(await wrong.complete(call())).toEqual({
      ok: false,
      failure: {
        kind: 'key-refused',
        status: 400,
        message: 'API key not valid. Please pass a valid API key.',
      },
    });
    expect(await wrong.stream(call())).toMatchObject({
      ok: false,
      failure: { kind: 'key-refused' },
    });
  });

  it('refuses without calling when no key is configured', async () => {
    const keyless = providerFor(sim.baseUrl, undefined);
    const refused = {
      ok: false,
      failure: {
        kind: 'key-refused',
        status: 401,
        message: 'No key for the provider google: GEMINI_API_KEY is not set.',
      },
    };
    expect(await keyless.complete(call())).toEqual(refused);
    expect(await keyless.stream(call())).toEqual(refused);
    expect(sim.requests).toHaveLength(0);
  });

  it('reports a dropped connection as unreachable', async () => {
    sim.script({ kind: 'drop' });
    const outcome = await provider.complete(call());
    expect(outcome).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
  });

  it('reports a provider that never answers as a timeout', async () => {
    const impatient = createTransport({ firstByteTimeoutMs: 150, idleTimeoutMs: 150 });
    try {
      sim.script({ kind: 'hang' });
      const started = Date.now();
      const outcome = await providerFor(sim.baseUrl, apiKey, impatient).complete(call());
      expect(outcome).toEqual({ ok: false, failure: { kind: 'timeout' } });
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await impatient.close();
    }
  });

  it('reports an unreachable provider', async () => {
    const gone = providerFor('http://127.0.0.1:1', apiKey);
    expect(await gone.complete(call())).toMatchObject({
      ok: false,
      failure: { kind: 'unreachable' },
    });
  });
});
