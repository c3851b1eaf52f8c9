/**
 * Reasoning through `/v1/chat/completions` on an OpenAI-compatible provider, as the official
 * `openai` package and the AI SDK meet it: the reasoning text under both spellings, streamed
 * before the answer, its tokens in the usage and in the recorded usage; `reasoning_effort` as
 * sent; what goes back upstream with an assistant turn; OpenAI's 400 for a model that does not
 * reason; and the router preferring a model that does.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GatewayServer, startGatewayServer } from '../testing/gateway-server.ts';
import {
  type OpenAiSimulator,
  startOpenAiSimulator,
} from '../testing/simulators/openai-simulator.ts';

let sim: OpenAiSimulator;
let gateway: GatewayServer;

const REASONING = 'openai/o4-mini';
const PLAIN = 'openai/gpt-4.1';
/** A reasoning model on a provider nobody listens for. */
const DOWN = 'down/o3';

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: 'sk-sim', chunkDelayMs: 1 });
  const model = (id: string, provider: string, upstream: string, reasoning: boolean) => ({
    id,
    provider,
    upstream,
    tools: true,
    reasoning,
    contextWindow: 200_000,
    price: { input: 1, output: 4 },
  });
  gateway = await startGatewayServer(
    {
      providers: {
        openai: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        down: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_SIM_KEY' },
      },
      models: [
        model(PLAIN, 'openai', 'gpt-4.1', false),
        model(REASONING, 'openai', 'o4-mini', true),
        model(DOWN, 'down', 'o3', true),
      ],
      // The model that does not reason first: the router must pass it over for reasoning.
      router: { id: 'auto', order: [PLAIN, DOWN, REASONING] },
    },
    { TEST_SIM_KEY: 'sk-sim' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await sim?.close();
});

const client = () =>
  new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
const hello = [{ role: 'user' as const, content: 'Hello there' }];
const weather = [
  {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object' } },
  },
];
const lastUpstream = () => sim.requests.at(-1)?.body as Record<string, unknown>;
const thinking = 'The user greets me; a greeting back will do.';

describe('whole answers (openai package)', () => {
  test('message.reasoning and message.reasoning_content, reasoning_tokens, the effort sent as is', async () => {
    sim.script({ kind: 'text', text: 'Hello!', reasoning: { text: thinking } });
    const completion = await client().chat.completions.create({
      model: REASONING,
      messages: hello,
      reasoning_effort: 'high',
    });
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Hello!',
      refusal: null,
      annotations: [],
      reasoning: thinking,
      reasoning_content: thinking,
    });
    // ceil(44 / 4) reasoning tokens, counted within the completion's.
    expect(completion.usage).toMatchObject({
      completion_tokens: 13,
      completion_tokens_details: { reasoning_tokens: 11 },
    });
    expect(lastUpstream().reasoning_effort).toBe('high');
    expect(lastUpstream().model).toBe('o4-mini');
  });

  test('DeepSeek’s reasoning_content spelling and OpenRouter’s reasoning_details come back the same way', async () => {
    sim.script({
      kind: 'text',
      text: 'Hi.',
      reasoning: {
        text: thinking,
        field: 'reasoning_content',
        details: [
          { type: 'reasoning.text', text: thinking, signature: null },
          { type: 'reasoning.encrypted', data: 'c2VhbGVk', format: 'openai-responses-v1' },
        ],
      },
    });
    const completion = await client().chat.completions.create({
      model: REASONING,
      messages: hello,
    });
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Hi.',
      refusal: null,
      annotations: [],
      reasoning: thinking,
      reasoning_content: thinking,
      // Marked as this provider kind's where the upstream named no format; its own kept.
      reasoning_details: [
        { type: 'reasoning.text', text: thinking, signature: null, format: 'openai' },
        { type: 'reasoning.encrypted', data: 'c2VhbGVk', format: 'openai-responses-v1' },
      ],
    });
  });

  test('an answer without reasoning has no reasoning field at all', async () => {
    sim.script({ kind: 'text', text: 'Plain.' });
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: REASONING, messages: hello }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: object }[] };
    expect(Object.keys(body.choices[0]?.message ?? {}).sort()).toEqual([
      'annotations',
      'content',
      'refusal',
      'role',
    ]);
  });
});

describe('streams (openai package)', () => {
  test('delta.reasoning before the answer; the stream helper keeps content and tool calls right', async () => {
    sim.script({
      kind: 'tool_calls',
      calls: [{ id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      reasoning: { text: thinking, field: 'reasoning_content' },
    });
    const stream = client().chat.completions.stream({
      model: REASONING,
      messages: hello,
      tools: weather,
      reasoning_effort: 'medium',
      stream_options: { include_usage: true },
    });
    const deltas: Record<string, unknown>[] = [];
    stream.on('chunk', (chunk) => {
      for (const choice of chunk.choices) deltas.push(choice.delta as Record<string, unknown>);
    });
    const final = await stream.finalChatCompletion();

    expect(deltas.map((delta) => delta.reasoning ?? '').join('')).toBe(thinking);
    // One spelling in streams, whatever the upstream used.
    expect(deltas.some((delta) => 'reasoning_content' in delta)).toBe(false);
    const firstCall = deltas.findIndex((delta) => 'tool_calls' in delta);
    expect(firstCall).toBeGreaterThan(0);
    expect(deltas.slice(firstCall).some((delta) => 'reasoning' in delta)).toBe(false);
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(final.choices[0]?.message.content).toBeNull();
    expect(final.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_paris',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(final.usage?.completion_tokens_details?.reasoning_tokens).toBe(11);
    expect(lastUpstream().reasoning_effort).toBe('medium');
  });

  test('text after reasoning reassembles exactly', async () => {
    sim.script({ kind: 'text', text: 'Hello to you too.', reasoning: { text: thinking } });
    const stream = client().chat.completions.stream({ model: REASONING, messages: hello });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Hello to you too.');
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });
});

describe('an assistant turn sent back upstream', () => {
  const details = [
    { type: 'reasoning.text', text: 'Mine.', signature: null, format: 'openai' },
    { type: 'reasoning.text', text: 'Claude’s.', signature: 'sig', format: 'anthropic' },
  ];
  const call = {
    id: 'call_paris',
    type: 'function' as const,
    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
  };

  test('keeps this kind’s reasoning_details, and its text only as reasoning_content of a tool-call turn', async () => {
    sim.script({ kind: 'text', text: 'Sunny.' });
    await client().chat.completions.create({
      model: REASONING,
      tools: weather,
      messages: [
        { role: 'user', content: 'Hi' },
        // A turn without tool calls: its text stays here.
        { role: 'assistant', content: 'Hello.', reasoning: 'Greet.', reasoning_content: 'Greet.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call],
          reasoning: 'Look it up.',
          reasoning_content: 'Look it up.',
          reasoning_details: details,
        },
        { role: 'tool', tool_call_id: 'call_paris', content: '21°C' },
        // Reasoning written by another kind only: it came from another provider.
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ ...call, id: 'call_oslo' }],
          reasoning: 'Claude thought.',
          reasoning_details: [details[1]],
        },
        { role: 'tool', tool_call_id: 'call_oslo', content: '12°C' },
      ] as OpenAI.ChatCompletionMessageParam[],
    });
    expect(lastUpstream().messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call],
        reasoning_details: [details[0]],
        reasoning_content: 'Look it up.',
      },
      { role: 'tool', tool_call_id: 'call_paris', content: '21°C' },
      { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'call_oslo' }] },
      { role: 'tool', tool_call_id: 'call_oslo', content: '12°C' },
    ]);
  });
});

describe('a model that does not reason', () => {
  test('reasoning_effort is OpenAI’s 400, whole or streamed, and nothing goes upstream', async () => {
    const before = sim.requests.length;
    for (const stream of [false, true]) {
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: PLAIN, messages: hello, reasoning_effort: 'low', stream }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'reasoning_effort',
          code: 'unsupported_parameter',
        },
      });
    }
    expect(sim.requests.length).toBe(before);

    const error = await client()
      .chat.completions.create({ model: PLAIN, messages: hello, reasoning_effort: 'high' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'reasoning_effort' });
  });

  test('on /v1/responses the same 400 names reasoning.effort, whole or streamed', async () => {
    const before = sim.requests.length;
    for (const stream of [false, true]) {
      const response = await fetch(`${gateway.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: PLAIN, input: 'Hi', reasoning: { effort: 'low' }, stream }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          message: "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'reasoning.effort',
          code: 'unsupported_parameter',
        },
      });
    }
    expect(sim.requests.length).toBe(before);
  });

  test('reasoning_effort none is answered, and not sent to the model', async () => {
    sim.script({ kind: 'text', text: 'Fine.' });
    const completion = await client().chat.completions.create({
      model: PLAIN,
      messages: hello,
      reasoning_effort: 'none',
    });
    expect(completion.choices[0]?.message.content).toBe('Fine.');
    expect(lastUpstream()).not.toHaveProperty('reasoning_effort');
  });
});

describe('the router auto', () => {
  test('asked to reason, prefers the first reasoning model that answers', async () => {
    sim.script({ kind: 'text', text: 'Reasoned.', reasoning: { text: thinking } });
    const { data, response } = await client()
      .chat.completions.create({ model: 'auto', messages: hello, reasoning_effort: 'low' })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Reasoned.');
    expect(data.model).toBe(REASONING);
    expect(response.headers.get('x-mnemo-model')).toBe(REASONING);
    expect(response.headers.get('x-mnemo-route')).toMatch(
      /^openai\/o4-mini: first reasoning model in the router's order that can serve it and answered \(needs reasoning, ~\d+ tokens\); passed over down\/o3: provider unreachable$/,
    );
    expect(lastUpstream()).toMatchObject({ model: 'o4-mini', reasoning_effort: 'low' });
  });

  test('not asked to reason, keeps the operator’s order', async () => {
    sim.script({ kind: 'text', text: 'Plain.' });
    const { data } = await client()
      .chat.completions.create({ model: 'auto', messages: hello })
      .withResponse();
    expect(data.model).toBe(PLAIN);
  });

  test('with no reasoning model answering, falls back to the others without reasoning_effort', async () => {
    sim.script({ kind: 'error', status: 503 });
    sim.script({ kind: 'text', text: 'Unreasoned.' });
    const { data, response } = await client()
      .chat.completions.create({ model: 'auto', messages: hello, reasoning_effort: 'high' })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Unreasoned.');
    expect(data.model).toBe(PLAIN);
    expect(response.headers.get('x-mnemo-route')).toMatch(
      /^openai\/gpt-4\.1: no reasoning model answered; first other model, without reasoning_effort, in the router's order that can serve it and answered \(needs reasoning, ~\d+ tokens\); passed over down\/o3: .*; openai\/o4-mini: provider answered 503$/,
    );
    const [tried, answered] = sim.requests.slice(-2).map((r) => r.body);
    expect(tried).toMatchObject({ model: 'o4-mini', reasoning_effort: 'high' });
    expect(answered?.model).toBe('gpt-4.1');
    expect(answered).not.toHaveProperty('reasoning_effort');
  });
});

describe('the AI SDK (@ai-sdk/openai-compatible)', () => {
  const mnemo = () =>
    createOpenAICompatible({
      name: 'mnemo',
      baseURL: gateway.baseUrl,
      apiKey: gateway.apiKey,
      includeUsage: true,
    });

  test('generateText: the reasoning text, the answer, the reasoning tokens', async () => {
    sim.script({ kind: 'text', text: 'Bonjour.', reasoning: { text: thinking } });
    const result = await generateText({
      model: mnemo().chatModel(REASONING),
      prompt: 'Say hello in French.',
      providerOptions: { mnemo: { reasoningEffort: 'low' } },
      maxRetries: 0,
    });
    expect(result.text).toBe('Bonjour.');
    expect(result.reasoningText).toBe(thinking);
    expect(result.usage.outputTokenDetails?.reasoningTokens).toBe(11);
    expect(lastUpstream().reasoning_effort).toBe('low');
  });

  test('streamText: reasoning deltas, then the text', async () => {
    sim.script({ kind: 'text', text: 'One, two, three.', reasoning: { text: thinking } });
    const result = streamText({
      model: mnemo().chatModel(REASONING),
      prompt: 'Count to three.',
      maxRetries: 0,
    });
    const kinds: string[] = [];
    for await (const part of result.fullStream) kinds.push(part.type);
    expect(await result.reasoningText).toBe(thinking);
    expect(await result.text).toBe('One, two, three.');
    expect(kinds.indexOf('reasoning-end')).toBeLessThan(kinds.indexOf('text-start'));
  });
});

describe('usage', () => {
  test('recorded with its reasoning tokens: GET /api/v1/usage and the CSV export', async () => {
    const org = await startGatewayServer(
      {
        providers: {
          openai: { kind: 'openai', baseUrl: sim.baseUrl, apiKeyEnv: 'TEST_SIM_KEY' },
        },
        models: [
          {
            id: REASONING,
            provider: 'openai',
            upstream: 'o4-mini',
            reasoning: true,
            contextWindow: 200_000,
            price: { input: 1, output: 4 },
          },
        ],
      },
      { TEST_SIM_KEY: 'sk-sim' },
    );
    try {
      const mine = new OpenAI({ baseURL: org.baseUrl, apiKey: org.apiKey, maxRetries: 0 });
      sim.script({ kind: 'text', text: 'Whole.', reasoning: { text: thinking } });
      await mine.chat.completions.create({ model: REASONING, messages: hello });
      sim.script({ kind: 'text', text: 'Streamed.', reasoning: { text: `${thinking} Twice.` } });
      const stream = await mine.chat.completions.create({
        model: REASONING,
        messages: hello,
        stream: true,
      });
      for await (const _ of stream);
      await org.calls((calls) => calls.length === 2);

      const report = await org.usageReport('model');
      // 11 reasoning tokens of 13, then ceil(51 / 4) = 13 of 13 + ceil(9 / 4) = 16.
      expect(report.totals).toMatchObject({
        requests: 2,
        completionTokens: 29,
        reasoningTokens: 24,
      });
      expect(report.groups).toEqual([
        expect.objectContaining({ key: REASONING, reasoningTokens: 24 }),
      ]);

      const [header, ...lines] = (await org.usageCsv()).trim().split('\r\n');
      expect(header?.split(',').at(-2)).toBe('reasoning_tokens');
      expect(
        lines.map((line) =>
          line
            .split(',')
            .slice(5, 8)
            .concat(line.split(',').at(-2) ?? ''),
        ),
      ).toEqual([
        // prompt_tokens, completion_tokens, total_tokens, reasoning_tokens
        ['3', '13', '16', '11'],
        ['3', '16', '19', '13'],
      ]);
    } finally {
      await org.close();
    }
  });
});
