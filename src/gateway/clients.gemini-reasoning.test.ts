/**
 * A Gemini thinking model behind `/v1`, as the official `openai` package and the AI SDK meet
 * it: `reasoning_effort` sent upstream as Gemini's thinkingConfig, the thoughts back as
 * reasoning with their tokens, and a tool loop of several turns that keeps the thought
 * signatures Gemini 3 refuses to go without.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type GeminiSimulator,
  startGeminiSimulator,
} from '../testing/simulators/gemini-simulator.ts';

let sim: GeminiSimulator;
let gateway: GatewayServer;
let client: OpenAI;

const UPSTREAMS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview'] as const;

beforeAll(async () => {
  sim = await startGeminiSimulator({ apiKey: 'gemini-sim-key', chunkDelayMs: 1 });
  gateway = await startGatewayServer(
    {
      providers: {
        google: { kind: 'gemini', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_GEMINI_KEY' },
      },
      models: UPSTREAMS.map((upstream) => ({
        id: `google/${upstream}`,
        provider: 'google',
        upstream,
        tools: true,
        reasoning: true,
        contextWindow: 1_048_576,
        price: { input: 1, output: 10 },
      })),
    },
    { TEST_GEMINI_KEY: 'gemini-sim-key' },
  );
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});
beforeEach(() => {
  sim.requests.length = 0;
});

const question: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'What is the capital of France?' },
];
const thoughts = 'The capital of France is a well-known fact.';

const weatherTool: OpenAI.ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** The thinkingConfig each request carried upstream. */
const thinkingConfigs = () =>
  sim.requests.map((request) => request.body.generationConfig?.thinkingConfig);

describe('a Gemini thinking model through the openai package', () => {
  test('answers with its thoughts as reasoning, and counts them as reasoning tokens', async () => {
    sim.script({
      kind: 'text',
      text: 'Paris.',
      thoughts,
      usage: { promptTokenCount: 9, candidatesTokenCount: 2, thoughtsTokenCount: 40 },
    });
    const completion = await client.chat.completions.create({
      model: 'google/gemini-2.5-flash',
      messages: question,
      reasoning_effort: 'high',
    });
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & {
      reasoning?: string;
      reasoning_details?: unknown[];
    };
    expect(message.content).toBe('Paris.');
    expect(message.reasoning).toBe(thoughts);
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: thoughts, format: 'gemini', index: 0 },
      {
        type: 'reasoning.encrypted',
        data: expect.stringMatching(/^[A-Za-z0-9+/]{32}$/),
        id: null,
        format: 'gemini',
        index: 1,
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 42,
      total_tokens: 51,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 40 },
    });
    expect(thinkingConfigs()).toEqual([{ includeThoughts: true, thinkingBudget: 24_576 }]);
    const recorded = await gateway.calls((calls) => calls.length > 0);
    expect(recorded.at(-1)).toMatchObject({ promptTokens: 9, completionTokens: 42, status: 200 });
  });

  test('sends each effort upstream as the model’s budget or level', async () => {
    const efforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
    for (const upstream of UPSTREAMS) {
      for (const effort of efforts) {
        sim.script({ kind: 'text', text: 'Paris.', thoughts });
        await client.chat.completions.create({
          model: `google/${upstream}`,
          messages: question,
          // xhigh is newer than the package's types.
          reasoning_effort: effort as OpenAI.ReasoningEffort,
        });
      }
    }
    const on = (thinking: object) => ({ includeThoughts: true, ...thinking });
    expect(thinkingConfigs()).toEqual([
      { thinkingBudget: 0 },
      ...[512, 1024, 8192, 24_576, 24_576].map((thinkingBudget) => on({ thinkingBudget })),
      ...[128, 512, 1024, 8192, 24_576, 32_768].map((thinkingBudget) => on({ thinkingBudget })),
      ...['LOW', 'LOW', 'LOW', 'HIGH', 'HIGH', 'HIGH'].map((thinkingLevel) =>
        on({ thinkingLevel }),
      ),
    ]);
  });

  test('asks for no thoughts without reasoning_effort, as before', async () => {
    sim.script({ kind: 'text', text: 'Paris.', thoughts });
    const completion = await client.chat.completions.create({
      model: 'google/gemini-2.5-flash',
      messages: question,
    });
    const message = completion.choices[0]?.message as { reasoning?: string };
    expect(message.reasoning).toBeUndefined();
    expect(sim.requests[0]?.body.generationConfig).toBeUndefined();
    // The model thought all the same, as 2.5 Flash does by default: its tokens are counted.
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(11);
  });

  test('streams the thoughts as reasoning deltas before the answer', async () => {
    sim.script({ kind: 'text', text: 'It is Paris.', thoughts });
    const stream = client.chat.completions.stream({
      model: 'google/gemini-2.5-pro',
      messages: question,
      reasoning_effort: 'low',
      stream_options: { include_usage: true },
    });
    const order: string[] = [];
    let reasoning = '';
    const details: { type: string; index: number; text?: string; data?: string }[] = [];
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as
        | { content?: string; reasoning?: string; reasoning_details?: typeof details }
        | undefined;
      if (delta?.reasoning) {
        reasoning += delta.reasoning;
        order.push('reasoning');
      }
      if (delta?.content) order.push('content');
      details.push(...(delta?.reasoning_details ?? []));
    });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('It is Paris.');
    expect(reasoning).toBe(thoughts);
    expect(order.indexOf('content')).toBe(order.lastIndexOf('reasoning') + 1);
    // Eight thought words in one text piece, then the answer's signature.
    expect(
      details
        .filter((piece) => piece.index === 0)
        .map((piece) => piece.text)
        .join(''),
    ).toBe(thoughts);
    expect(details.at(-1)).toMatchObject({ type: 'reasoning.encrypted', id: null, index: 1 });
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(11);
    expect(thinkingConfigs()).toEqual([{ includeThoughts: true, thinkingBudget: 1024 }]);
  });

  test('keeps a three-turn tool loop going on Gemini 3, messages sent back as received', async () => {
    const model = 'google/gemini-3-pro-preview';
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris, then in Oslo?' },
    ];
    const turn = async () => {
      const completion = await client.chat.completions.create({
        model,
        messages,
        tools: [weatherTool],
        reasoning_effort: 'medium',
      });
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('no message');
      // As received, reasoning and reasoning_details included.
      messages.push(message as OpenAI.ChatCompletionAssistantMessageParam);
      for (const call of message.tool_calls ?? []) {
        messages.push({ role: 'tool', tool_call_id: call.id, content: '{"sky":"clear"}' });
      }
      return message as OpenAI.ChatCompletionMessage & { reasoning_details?: unknown[] };
    };

    sim.script({
      kind: 'tool_calls',
      thoughts: 'Paris first.',
      calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    });
    const first = await turn();
    sim.script({
      kind: 'tool_calls',
      thoughts: 'Now Oslo.',
      calls: [{ name: 'get_weather', args: { city: 'Oslo' } }],
    });
    const second = await turn();
    sim.script({ kind: 'text', text: 'Clear in both.', thoughts: 'Both clear.' });
    const third = await turn();

    expect(third.content).toBe('Clear in both.');
    const signed = (message: typeof first) => {
      const call = message.tool_calls?.[0];
      expect(message.reasoning_details?.[1]).toEqual({
        type: 'reasoning.encrypted',
        data: expect.any(String),
        id: call?.id,
        format: 'gemini',
        index: 1,
      });
      return (message.reasoning_details?.[1] as { data: string }).data;
    };
    const signatures = [signed(first), signed(second)];
    // The last request held both calls, each with the signature it came with.
    const contents = sim.requests[2]?.body.contents ?? [];
    expect(contents.map((content) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    expect([contents[1]?.parts, contents[3]?.parts]).toEqual([
      [
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris' } },
          thoughtSignature: signatures[0],
        },
      ],
      [
        {
          functionCall: { name: 'get_weather', args: { city: 'Oslo' } },
          thoughtSignature: signatures[1],
        },
      ],
    ]);
  });

  test('passes on Gemini 3’s refusal of a call sent back without its signature', async () => {
    sim.script({
      kind: 'tool_calls',
      thoughts: 'Paris first.',
      calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    });
    const model = 'google/gemini-3-pro-preview';
    const first = await client.chat.completions.create({
      model,
      messages: question,
      tools: [weatherTool],
      reasoning_effort: 'high',
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('no call');
    // A client that rebuilds the call under an id of its own loses the signature.
    const error = await client.chat.completions
      .create({
        model,
        messages: [
          ...question,
          { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'call_mine' }] },
          { role: 'tool', tool_call_id: 'call_mine', content: 'clear' },
        ],
        tools: [weatherTool],
        reasoning_effort: 'high',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: expect.stringContaining('Function call is missing a thought_signature'),
      type: 'invalid_request_error',
    });
  });
});

describe('a Gemini thinking model through the AI SDK', () => {
  test('generateText: reasoning out, and a tool loop over the ids it keeps', async () => {
    const mnemo = createOpenAICompatible({
      name: 'mnemo',
      baseURL: gateway.baseUrl,
      apiKey: gateway.apiKey,
      includeUsage: true,
    });
    sim.script({
      kind: 'tool_calls',
      thoughts: 'Paris first.',
      calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    });
    sim.script({
      kind: 'tool_calls',
      thoughts: 'Now Oslo.',
      calls: [{ name: 'get_weather', args: { city: 'Oslo' } }],
    });
    sim.script({
      kind: 'text',
      text: 'Clear in both.',
      thoughts: 'Both clear.',
      usage: { promptTokenCount: 30, candidatesTokenCount: 4, thoughtsTokenCount: 12 },
    });
    const result = await generateText({
      model: mnemo('google/gemini-3-pro-preview'),
      prompt: 'Weather in Paris, then in Oslo?',
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
          execute: async () => ({ sky: 'clear' }),
        }),
      },
      stopWhen: stepCountIs(3),
      providerOptions: { mnemo: { reasoningEffort: 'low' } },
      maxRetries: 0,
    });
    expect(result.text).toBe('Clear in both.');
    expect(result.steps.map((step) => step.reasoningText)).toEqual([
      'Paris first.',
      'Now Oslo.',
      'Both clear.',
    ]);
    // OpenAI's accounting: the answer's 4 tokens and the 12 of its thinking.
    expect(result.steps.at(-1)?.usage).toMatchObject({
      outputTokens: 16,
      outputTokenDetails: { textTokens: 4, reasoningTokens: 12 },
    });
    expect(thinkingConfigs()).toEqual(
      Array(3).fill({ includeThoughts: true, thinkingLevel: 'LOW' }),
    );
    // The AI SDK sends no reasoning_details back: each signature came back in its call's id.
    const last = sim.requests[2]?.body.contents ?? [];
    expect(last[1]?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
    expect(last[3]?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
  });
});
