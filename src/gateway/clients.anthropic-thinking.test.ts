/**
 * `/v1` over an Anthropic reasoning model, as the official `openai` package and the Vercel AI
 * SDK meet it: `reasoning_effort` as extended thinking, the thinking back as `reasoning` and
 * `reasoning_details` whole and streamed, a tool loop whose thinking survives the client's
 * round trip, Anthropic's turn rules, and the settings thinking refuses.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type AnthropicSimulator,
  type RecordedRequest,
  startAnthropicSimulator,
} from '../testing/simulators/anthropic-simulator.ts';

const MODEL = 'anthropic/claude-sonnet-4-5';
let sim: AnthropicSimulator;
let gateway: GatewayServer;
let client: OpenAI;

beforeAll(async () => {
  sim = await startAnthropicSimulator({ apiKey: 'sk-ant-sim', chunkDelayMs: 1 });
  gateway = await startGatewayServer(
    {
      providers: {
        anthropic: { kind: 'anthropic', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_ANTHROPIC_KEY' },
      },
      models: [
        {
          id: MODEL,
          provider: 'anthropic',
          upstream: 'claude-sonnet-4-5',
          vision: true,
          tools: true,
          jsonOutput: true,
          reasoning: true,
          contextWindow: 200_000,
          price: { input: 3, output: 15 },
        },
      ],
    },
    { TEST_ANTHROPIC_KEY: 'sk-ant-sim' },
  );
  client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

let seen: number;
beforeEach(() => {
  seen = sim.requests.length;
});
/** The requests the simulator received during this test. */
const upstream = (): RecordedRequest['body'][] =>
  sim.requests.slice(seen).map((request) => request.body);

const weatherTool: OpenAI.ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const signed = { signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/) };

describe('reasoning out', () => {
  test('create: reasoning_effort becomes thinking; the thinking comes back as reasoning', async () => {
    sim.script({ kind: 'text', text: 'Four.', thinking: 'Two and two make four.', redacted: true });
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is 2 + 2?' }],
      reasoning_effort: 'medium',
      max_completion_tokens: 500,
    });

    const [sent] = upstream();
    expect(sent?.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    // The client's limit is the answer's; the thinking's budget comes on top.
    expect(sent?.max_tokens).toBe(8192 + 500);
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & {
      reasoning?: string;
      reasoning_details?: unknown[];
    };
    expect(message.content).toBe('Four.');
    expect(message.reasoning).toBe('Two and two make four.');
    expect(message.reasoning_details).toEqual([
      {
        type: 'reasoning.encrypted',
        data: expect.stringMatching(/^EmwKAhgBEgy/),
        format: 'anthropic',
        index: 0,
      },
      {
        type: 'reasoning.text',
        text: 'Two and two make four.',
        ...signed,
        format: 'anthropic',
        index: 1,
      },
    ]);
    // Output: the redacted block (200 characters), the thinking (22) and the answer (5), by
    // the simulator's estimate; the reasoning tokens, estimated from the thinking's text.
    expect(completion.usage).toMatchObject({
      completion_tokens: Math.ceil((200 + 22 + 5) / 4),
      completion_tokens_details: { reasoning_tokens: Math.ceil(22 / 4) },
    });
  });

  test.each([
    ['minimal', 1024],
    ['low', 2048],
    ['high', 16384],
    ['xhigh', 24576],
  ] as const)('reasoning_effort %s is a budget of %i, on top of the default 4096', async (effort, budget) => {
    sim.script({ kind: 'text', text: 'Yes.' });
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Ready?' }],
      reasoning_effort: effort as OpenAI.ReasoningEffort,
    });
    expect(upstream()[0]).toMatchObject({
      max_tokens: budget + 4096,
      thinking: { type: 'enabled', budget_tokens: budget },
    });
  });

  test('reasoning_effort none, or none at all, answers without thinking', async () => {
    sim.script({ kind: 'text', text: 'Yes.', thinking: 'Unused.' });
    sim.script({ kind: 'text', text: 'Yes.', thinking: 'Unused.' });
    for (const effort of ['none', undefined] as const) {
      const completion = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Ready?' }],
        temperature: 0.2,
        ...(effort === undefined ? {} : { reasoning_effort: effort }),
      });
      expect(completion.choices[0]?.message).toEqual({
        role: 'assistant',
        content: 'Yes.',
        refusal: null,
      });
      expect(completion.usage?.completion_tokens_details).toBeUndefined();
    }
    for (const sent of upstream()) {
      expect(sent.thinking).toBeUndefined();
      expect(sent).toMatchObject({ max_tokens: 4096, temperature: 0.2 });
    }
  });

  test('stream: reasoning deltas before the content, details rebuilt by index', async () => {
    const thinking = 'The user greets me, so I greet them back.';
    sim.script({ kind: 'text', text: 'Hello to you too.', thinking });
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello' }],
      reasoning_effort: 'low',
      stream_options: { include_usage: true },
    });
    const order: string[] = [];
    let reasoning = '';
    const details = new Map<number, { text: string; signature?: string; [key: string]: unknown }>();
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as
        | (OpenAI.ChatCompletionChunk.Choice.Delta & {
            reasoning?: string;
            reasoning_details?: { index: number; text: string; signature?: string }[];
          })
        | undefined;
      if (delta?.reasoning) {
        reasoning += delta.reasoning;
        order.push('reasoning');
      }
      if (delta?.content) order.push('content');
      for (const piece of delta?.reasoning_details ?? []) {
        const known = details.get(piece.index);
        if (known === undefined) details.set(piece.index, { ...piece });
        else {
          known.text += piece.text;
          if (piece.signature !== undefined) known.signature = piece.signature;
        }
      }
    });
    const completion = await stream.finalChatCompletion();

    expect(completion.choices[0]?.message.content).toBe('Hello to you too.');
    expect(reasoning).toBe(thinking);
    expect(order.indexOf('content')).toBe(order.lastIndexOf('reasoning') + 1);
    expect(order.filter((kind) => kind === 'reasoning').length).toBeGreaterThan(3);
    expect([...details.values()]).toEqual([
      { type: 'reasoning.text', text: thinking, ...signed, format: 'anthropic', index: 0 },
    ]);
    expect(completion.usage?.completion_tokens_details).toEqual({
      reasoning_tokens: Math.ceil(thinking.length / 4),
    });
    expect(upstream()[0]?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});

describe('a tool loop with thinking on', () => {
  test('create: three turns, the signatures surviving the client’s round trip', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris, then in Oslo?' },
    ];
    const paris = { id: 'toolu_paris', name: 'get_weather', input: { city: 'Paris' } };
    const oslo = { id: 'toolu_oslo', name: 'get_weather', input: { city: 'Oslo' } };
    sim.script({
      kind: 'tool_calls',
      calls: [paris],
      thinking: 'Paris first.',
      redacted: true,
    });
    sim.script({ kind: 'tool_calls', calls: [oslo], thinking: 'Now Oslo.' });
    sim.script({ kind: 'text', text: 'Paris 22 °C, Oslo 9 °C.', thinking: 'Both known.' });

    let answer: OpenAI.ChatCompletion | undefined;
    const results = [
      { id: paris.id, content: '22 °C' },
      { id: oslo.id, content: '9 °C' },
    ];
    for (const result of [...results, undefined]) {
      answer = await client.chat.completions.create({
        model: MODEL,
        messages,
        tools: [weatherTool],
        reasoning_effort: 'low',
      });
      const message = answer.choices[0]?.message;
      if (message === undefined || result === undefined) break;
      // The assistant message goes back as the client received it.
      messages.push(message as OpenAI.ChatCompletionMessageParam);
      messages.push({ role: 'tool', tool_call_id: result.id, content: result.content });
    }
    expect(answer?.choices[0]?.message.content).toBe('Paris 22 °C, Oslo 9 °C.');

    const sent = upstream();
    expect(sent).toHaveLength(3);
    for (const body of sent)
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const assistantTurns = (sent[2]?.messages as { role: string; content: { type: string }[] }[])
      .filter((message) => message.role === 'assistant')
      .map((message) => message.content);
    expect(assistantTurns).toEqual([
      [
        { type: 'redacted_thinking', data: expect.stringMatching(/^EmwKAhgBEgy/) },
        { type: 'thinking', thinking: 'Paris first.', ...signed },
        { type: 'tool_use', ...paris },
      ],
      [
        { type: 'thinking', thinking: 'Now Oslo.', ...signed },
        { type: 'tool_use', ...oslo },
      ],
    ]);
  });

  test('stream: the details rebuilt from the deltas go back and are accepted', async () => {
    const call = { id: 'toolu_paris', name: 'get_weather', input: { city: 'Paris' } };
    sim.script({ kind: 'tool_calls', calls: [call], thinking: 'Ask the weather tool.' });
    sim.script({ kind: 'text', text: 'Sunny.' });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Paris?' }];
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages,
      tools: [weatherTool],
      reasoning_effort: 'low',
    });
    const details = new Map<number, { text: string; signature?: string }>();
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as {
        reasoning_details?: { index: number; text: string; signature?: string }[];
      };
      for (const piece of delta?.reasoning_details ?? []) {
        const known = details.get(piece.index);
        if (known === undefined) details.set(piece.index, { ...piece });
        else {
          known.text += piece.text;
          if (piece.signature !== undefined) known.signature = piece.signature;
        }
      }
    });
    const first = await stream.finalChatCompletion();
    const toolCalls = first.choices[0]?.message.tool_calls ?? [];
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: toolCalls,
      // @ts-expect-error: reasoning_details is a gateway extension the SDK does not type.
      reasoning_details: [...details.values()],
    });
    messages.push({ role: 'tool', tool_call_id: call.id, content: '22 °C' });
    const second = await client.chat.completions.create({
      model: MODEL,
      messages,
      tools: [weatherTool],
      reasoning_effort: 'low',
    });
    expect(second.choices[0]?.message.content).toBe('Sunny.');
    const turns = upstream()[1]?.messages as { role: string; content: unknown[] }[];
    expect(turns[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Ask the weather tool.',
      ...signed,
    });
  });

  test('a client that dropped the details goes on without thinking', async () => {
    const call = { id: 'toolu_paris', name: 'get_weather', input: { city: 'Paris' } };
    sim.script({ kind: 'text', text: 'Sunny.' });
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: call.id, content: '22 °C' },
      ],
      tools: [weatherTool],
      reasoning_effort: 'high',
      max_completion_tokens: 300,
    });
    expect(completion.choices[0]?.message.content).toBe('Sunny.');
    const [sent] = upstream();
    expect(sent?.thinking).toBeUndefined();
    expect(sent?.max_tokens).toBe(300);
  });

  test('details of another provider kind are not sent to Anthropic', async () => {
    sim.script({ kind: 'text', text: 'Noted.' });
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: 'Hello.',
          // @ts-expect-error: reasoning_details is a gateway extension the SDK does not type.
          reasoning_details: [
            { type: 'reasoning.encrypted', data: 'gAAAA-openai', format: 'openai', index: 0 },
          ],
        },
        { role: 'user', content: 'Bye' },
      ],
      reasoning_effort: 'low',
    });
    const turns = upstream()[0]?.messages as { role: string; content: unknown[] }[];
    expect(turns[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] });
  });
});

describe('through the AI SDK', () => {
  const mnemo = () =>
    createOpenAICompatible({
      name: 'mnemo',
      baseURL: gateway.baseUrl,
      apiKey: gateway.apiKey,
      includeUsage: true,
    });

  test('generateText reads the reasoning and its token count', async () => {
    sim.script({ kind: 'text', text: 'Four.', thinking: 'Two and two make four.' });
    const result = await generateText({
      model: mnemo().chatModel(MODEL),
      prompt: 'What is 2 + 2?',
      providerOptions: { mnemo: { reasoningEffort: 'medium' } },
    });
    expect(result.text).toBe('Four.');
    expect(result.reasoningText).toBe('Two and two make four.');
    expect(result.usage.outputTokenDetails.reasoningTokens).toBe(Math.ceil(22 / 4));
    expect(upstream()[0]?.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
  });

  test('streamText streams the reasoning, and a tool loop goes on', async () => {
    const call = { id: 'toolu_paris', name: 'get_weather', input: { city: 'Paris' } };
    sim.script({ kind: 'tool_calls', calls: [call], thinking: 'Ask the weather tool.' });
    sim.script({ kind: 'text', text: 'Sunny, 22 °C.', thinking: 'It is sunny.' });
    const result = streamText({
      model: mnemo().chatModel(MODEL),
      prompt: 'Weather in Paris?',
      providerOptions: { mnemo: { reasoningEffort: 'low' } },
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
          execute: async () => '22 °C, sunny',
        }),
      },
      stopWhen: stepCountIs(3),
    });
    const reasoning: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'reasoning-delta') reasoning.push(part.text);
    }
    expect(await result.text).toBe('Sunny, 22 °C.');
    // The AI SDK sends back the reasoning's text but not its details: the second step, a
    // continued tool call without its signed thinking, goes to Anthropic without thinking,
    // and thinks nothing.
    expect(reasoning.join('')).toBe('Ask the weather tool.');
    const [first, second] = upstream();
    expect(first?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(second?.thinking).toBeUndefined();
  });
});

describe('Anthropic’s turn rules', () => {
  test('a conversation opening with the assistant’s greeting gets a one-character user turn before it', async () => {
    sim.script({ kind: 'text', text: 'Blue.' });
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'assistant', content: 'Hi! What would you like to know?' },
        { role: 'user', content: 'The colour of the sky?' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Blue.');
    expect(upstream()[0]).toMatchObject({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: '.' }] },
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'Hi! What would you like to know?' }],
        },
        { role: 'user', content: [{ type: 'text', text: 'The colour of the sky?' }] },
      ],
    });
  });

  test('a lone system prompt becomes the one user turn, which Anthropic requires', async () => {
    sim.script({ kind: 'text', text: 'Leaves fall.' });
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Write a haiku about autumn.' },
        { role: 'developer', content: 'Three lines.' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Leaves fall.');
    const [sent] = upstream();
    expect(sent?.system).toBeUndefined();
    expect(sent?.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'Write a haiku about autumn.\n\nThree lines.' }],
      },
    ]);
  });

  test('turns of one role around a lifted system message merge into one turn', async () => {
    sim.script({ kind: 'text', text: 'Both.' });
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'First question.' },
        { role: 'system', content: 'Answer both.' },
        { role: 'user', content: 'Second question.' },
        { role: 'assistant', content: 'One.' },
        { role: 'assistant', content: 'Two.' },
        { role: 'user', content: 'And?' },
      ],
    });
    expect(upstream()[0]).toMatchObject({
      system: 'Answer both.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'First question.' },
            { type: 'text', text: 'Second question.' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'One.' },
            { type: 'text', text: 'Two.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'And?' }] },
      ],
    });
  });
});

describe('settings thinking refuses', () => {
  const refusal = async (fields: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) => {
    const error = await client.chat.completions
      .create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        reasoning_effort: 'low',
        ...fields,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const refused = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(refused.status).toBe(400);
    expect(refused.type).toBe('invalid_request_error');
    expect(refused.code).toBe('unsupported_value');
    expect(upstream()).toEqual([]);
    return { param: refused.param, message: refused.message };
  };

  test('a temperature other than 1', async () => {
    expect(await refusal({ temperature: 0.2 })).toEqual({
      param: 'temperature',
      message:
        '400 Anthropic models think only at temperature 1: leave out `temperature`, or send `reasoning_effort: "none"` to answer without thinking.',
    });
  });

  test('a top_p below 0.95', async () => {
    expect(await refusal({ top_p: 0.5 })).toMatchObject({ param: 'top_p' });
  });

  test('a tool choice that forces a tool: required, or a named function', async () => {
    expect(await refusal({ tools: [weatherTool], tool_choice: 'required' })).toMatchObject({
      param: 'tool_choice',
    });
    expect(
      await refusal({
        tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      }),
    ).toMatchObject({ param: 'tool_choice' });
  });

  test('JSON mode, which forces its answer tool', async () => {
    expect(await refusal({ response_format: { type: 'json_object' } })).toMatchObject({
      param: 'response_format',
    });
  });

  test('temperature 1 and top_p from 0.95 are taken', async () => {
    sim.script({ kind: 'text', text: 'Sunny.' });
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      reasoning_effort: 'low',
      temperature: 1,
    });
    expect(completion.choices[0]?.message.content).toBe('Sunny.');
    sim.script({ kind: 'text', text: 'Sunny.' });
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      reasoning_effort: 'low',
      top_p: 0.95,
    });
    expect(upstream().map((body) => [body.temperature, body.top_p])).toEqual([
      [1, undefined],
      [undefined, 0.95],
    ]);
  });
});
