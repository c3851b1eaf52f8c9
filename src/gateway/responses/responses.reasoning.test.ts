/**
 * `/v1/responses` with reasoning models of every provider kind, over HTTP with the official
 * `openai` package: the reasoning item before the answer (whole and streamed), its sealed
 * pieces carried back through a tool loop to the provider that wrote them, and every whole
 * answer and every streamed event checked field by field against the documented shapes
 * (testing/responses-shape.ts).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../../testing/gateway-server.ts';
import { responseEventShapeErrors, responseShapeErrors } from '../../testing/responses-shape.ts';
import {
  type AnthropicSimulator,
  startAnthropicSimulator,
} from '../../testing/simulators/anthropic-simulator.ts';
import {
  type GeminiSimulator,
  startGeminiSimulator,
} from '../../testing/simulators/gemini-simulator.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../../testing/simulators/openai-simulator.ts';

type Kind = 'openai' | 'anthropic' | 'gemini';

let openai: OpenAiSimulator;
let anthropic: AnthropicSimulator;
let gemini: GeminiSimulator;
let gateway: GatewayServer;

const THINKING = 'The user wants the weather. I should call the tool.';
const MODELS: Record<Kind, string> = {
  openai: 'sim-openai/o4-mini',
  anthropic: 'sim-anthropic/claude-sonnet-4-5',
  gemini: 'sim-google/gemini-2.5-flash',
};
/** OpenRouter-style pieces an OpenAI-compatible upstream gives with its reasoning. */
const OPENAI_DETAILS = [{ type: 'reasoning.encrypted', data: 'upstream-sealed', format: 'openai' }];

/** Scripts the next answer of `kind`'s simulator: text or a call, after THINKING. */
function script(kind: Kind, answer: { text: string } | { call: { id: string; city: string } }) {
  if (kind === 'openai') {
    const reasoning = { text: THINKING, details: OPENAI_DETAILS };
    openai.script(
      'text' in answer
        ? { kind: 'text', text: answer.text, reasoning }
        : {
            kind: 'tool_calls',
            calls: [
              {
                id: answer.call.id,
                name: 'get_weather',
                arguments: JSON.stringify({ city: answer.call.city }),
              },
            ],
            reasoning,
          },
    );
  } else if (kind === 'anthropic') {
    anthropic.script(
      'text' in answer
        ? { kind: 'text', text: answer.text, thinking: THINKING }
        : {
            kind: 'tool_calls',
            calls: [{ id: answer.call.id, name: 'get_weather', input: { city: answer.call.city } }],
            thinking: THINKING,
          },
    );
  } else {
    gemini.script(
      'text' in answer
        ? { kind: 'text', text: answer.text, thoughts: THINKING }
        : {
            kind: 'tool_calls',
            calls: [{ id: answer.call.id, name: 'get_weather', args: { city: answer.call.city } }],
            thoughts: THINKING,
          },
    );
  }
}

/** The last request `kind`'s provider received. */
function lastUpstream(kind: Kind): Record<string, unknown> {
  const requests = { openai, anthropic, gemini }[kind].requests;
  return requests.at(-1)?.body as Record<string, unknown>;
}

beforeAll(async () => {
  openai = await startOpenAiSimulator({ apiKey: 'sk-openai-sim', chunkDelayMs: 0 });
  anthropic = await startAnthropicSimulator({ apiKey: 'sk-ant-sim', chunkDelayMs: 0 });
  gemini = await startGeminiSimulator({ apiKey: 'gemini-sim-key', chunkDelayMs: 0 });
  const model = (id: string, provider: string, upstream: string) => ({
    id,
    provider,
    upstream,
    tools: true,
    reasoning: true,
    contextWindow: 200000,
    price: { input: 2, output: 8 },
  });
  gateway = await startGatewayServer(
    {
      providers: {
        'sim-openai': { kind: 'openai', baseUrl: openai.baseUrl, apiKeyEnv: 'TEST_OPENAI_KEY' },
        'sim-anthropic': {
          kind: 'anthropic',
          baseUrl: anthropic.baseUrl,
          apiKeyEnv: 'TEST_ANTHROPIC_KEY',
        },
        'sim-google': { kind: 'gemini', baseUrl: gemini.baseUrl, apiKeyEnv: 'TEST_GEMINI_KEY' },
      },
      models: [
        model(MODELS.openai, 'sim-openai', 'o4-mini'),
        model(MODELS.anthropic, 'sim-anthropic', 'claude-sonnet-4-5'),
        model(MODELS.gemini, 'sim-google', 'gemini-2.5-flash'),
      ],
    },
    {
      TEST_OPENAI_KEY: 'sk-openai-sim',
      TEST_ANTHROPIC_KEY: 'sk-ant-sim',
      TEST_GEMINI_KEY: 'gemini-sim-key',
    },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});

const client = () =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

describe.each(['openai', 'anthropic', 'gemini'] as const)('a %s reasoning model', (kind) => {
  const model = MODELS[kind];

  test('a whole response: the reasoning item first, summary asked, every field documented', async () => {
    script(kind, { text: 'Sunny.' });
    const raw = await client()
      .responses.create({
        model,
        input: 'Weather in Paris?',
        reasoning: { effort: 'low', summary: 'auto' },
      })
      .asResponse();
    expect(raw.status).toBe(200);
    const response = (await raw.json()) as OpenAI.Responses.Response;
    expect(responseShapeErrors(response)).toEqual([]);
    expect(response.reasoning).toEqual({ effort: 'low', summary: 'auto' });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({
      type: 'reasoning',
      status: 'completed',
      summary: [{ type: 'summary_text', text: THINKING }],
      content: [{ type: 'reasoning_text', text: THINKING }],
      encrypted_content: expect.any(String),
    });
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    // The effort reached the provider, in its own words.
    const upstream = lastUpstream(kind);
    if (kind === 'openai') expect(upstream.reasoning_effort).toBe('low');
    if (kind === 'anthropic') expect(upstream.thinking).toMatchObject({ type: 'enabled' });
    if (kind === 'gemini') {
      expect(upstream.generationConfig).toMatchObject({
        thinkingConfig: { includeThoughts: true },
      });
    }
  });

  test('a streamed response: every event documented, rebuilt by responses.stream()', async () => {
    script(kind, { text: 'Sunny.' });
    const stream = await client().responses.create({
      model,
      input: 'Weather in Paris?',
      reasoning: { effort: 'low' },
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) {
      expect(responseEventShapeErrors(event)).toEqual([]);
      types.push(event.type);
    }
    // No summary asked: the text streams as the item's content.
    expect(types.slice(0, 5)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
    ]);
    expect(types.at(-1)).toBe('response.completed');

    script(kind, { text: 'Sunny.' });
    const final = await client()
      .responses.stream({
        model,
        input: 'Weather in Paris?',
        reasoning: { effort: 'low', summary: 'concise' },
      })
      .finalResponse();
    expect(final.output_text).toBe('Sunny.');
    expect(final.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: THINKING }],
      content: [{ type: 'reasoning_text', text: THINKING }],
      encrypted_content: expect.any(String),
    });
  });

  test('a tool loop carries the reasoning back to the provider that wrote it', async () => {
    script(kind, { call: { id: 'call_paris', city: 'Paris' } });
    const first = await client()
      .responses.stream({
        model,
        input: 'Weather in Paris?',
        tools: [weatherTool],
        reasoning: { effort: 'low' },
      })
      .finalResponse();
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;

    script(kind, { text: 'Sunny in Paris.' });
    const second = await client().responses.create({
      model,
      tools: [weatherTool],
      reasoning: { effort: 'low' },
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"clear"}' },
      ],
    });
    expect(second.output_text).toBe('Sunny in Paris.');
    // The provider got its own pieces back on the assistant turn that called.
    const upstream = lastUpstream(kind);
    if (kind === 'openai') {
      expect((upstream.messages as object[])[1]).toMatchObject({
        role: 'assistant',
        reasoning_details: OPENAI_DETAILS,
      });
    }
    if (kind === 'anthropic') {
      // The simulator refuses thinking it did not sign; here it answered.
      expect((upstream.messages as { content: object[] }[])[1]?.content[0]).toMatchObject({
        type: 'thinking',
        thinking: THINKING,
        signature: expect.any(String),
      });
    }
    if (kind === 'gemini') {
      const turn = (upstream.contents as { role: string; parts: object[] }[])[1];
      expect(turn?.parts).toContainEqual(
        expect.objectContaining({
          functionCall: expect.objectContaining({ name: 'get_weather' }),
          thoughtSignature: expect.any(String),
        }),
      );
    }
  });
});

describe.each([
  'openai',
  'anthropic',
  'gemini',
] as const)('a %s model without reasoning', (kind) => {
  const model = MODELS[kind];
  test('whole and streamed answers, with tools and every echoed field set, are documented shapes', async () => {
    const request = {
      model,
      input: 'Weather in Paris?',
      instructions: 'Be brief.',
      // `strict` not set: OpenAI's default (true) is echoed.
      tools: [weatherTool, { ...weatherTool, name: 'get_time', strict: null }],
      temperature: 0.5,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      top_logprobs: 2,
      max_output_tokens: 512,
      max_tool_calls: 3,
      metadata: { trace: 't-1' },
      user: 'user-1',
      safety_identifier: 'hashed',
      prompt_cache_key: 'thread-1',
      text: { verbosity: 'low' as const },
    };
    script(kind, { call: { id: 'call_1', city: 'Paris' } });
    const raw = await client().responses.create(request).asResponse();
    const whole = (await raw.json()) as OpenAI.Responses.Response;
    expect(responseShapeErrors(whole)).toEqual([]);
    expect(whole).toMatchObject({
      temperature: 0.5,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      top_logprobs: 2,
      max_tool_calls: 3,
      safety_identifier: 'hashed',
      prompt_cache_key: 'thread-1',
      text: { format: { type: 'text' }, verbosity: 'low' },
      reasoning: { effort: null, summary: null },
      completed_at: expect.any(Number),
      service_tier: 'default',
      billing: { payer: 'developer' },
    });
    expect(whole.tools.map((tool) => (tool as { strict: boolean }).strict)).toEqual([false, true]);

    script(kind, { text: 'Sunny.' });
    const stream = await client().responses.create({ ...request, stream: true });
    let events = 0;
    for await (const event of stream) {
      expect(responseEventShapeErrors(event)).toEqual([]);
      events += 1;
    }
    expect(events).toBeGreaterThan(5);
  });
});

test('encrypted_content this server did not seal: 400 in OpenAI words, nothing sent upstream', async () => {
  const before = anthropic.requests.length;
  const error = await client()
    .responses.create({
      model: MODELS.anthropic,
      input: [
        { role: 'user', content: 'Hi' },
        {
          type: 'reasoning',
          id: 'rs_foreign',
          summary: [],
          encrypted_content: 'gAAAAABoZXJlIGlzIG5vdCBtbmVtbw==',
        },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'Again' },
      ],
    })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
    message:
      'The encrypted content for item rs_foreign could not be verified. Reason: Encrypted content could not be decrypted or parsed.',
    type: 'invalid_request_error',
    param: 'input[1].encrypted_content',
    code: 'invalid_encrypted_content',
  });
  expect(anthropic.requests.length).toBe(before);
});

test('the documented shapes catch a field too many, one missing and one of the wrong type', async () => {
  script('openai', { text: 'Sunny.' });
  const raw = await client().responses.create({ model: MODELS.openai, input: 'Hi' }).asResponse();
  const { top_logprobs: _, ...response } = (await raw.json()) as Record<string, unknown>;
  expect(responseShapeErrors({ ...response, top_logprobs: 0 })).toEqual([]);
  expect(responseShapeErrors(response)).not.toEqual([]);
  expect(responseShapeErrors({ ...response, top_logprobs: 0, extra: true })).not.toEqual([]);
  expect(responseShapeErrors({ ...response, top_logprobs: 0, temperature: null })).not.toEqual([]);
  expect(
    responseEventShapeErrors({
      type: 'response.reasoning_text.delta',
      sequence_number: 3,
      item_id: 'rs_1',
      output_index: 0,
      delta: 'x',
    }),
  ).not.toEqual([]);
});
